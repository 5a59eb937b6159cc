Feature: Gateways and their upstream (spec §15)
  A gateway runs the gate in front of the application, its upstream. These scenarios need the `gateway` capability
  (`--declare capabilities=gateway`, harness/PROFILE.md, Capabilities): the kit starts its own controlled upstream,
  which serves the profile's handlers, and hands its URL to the target command in CREDIT402_UPSTREAM_URL. The kit makes
  that upstream fail one request (by its conformance-request-id) or refuse connections, and reads what reached it: the
  request target and the headers. Without the capability these scenarios are not run.

  # The retry is a new deduction (9500), and its own repeat is still to come (9500 again, CR-6.9): a gateway that kept
  # the failed request's deduction serves the retry as that deduction's repeat, free, and refuses the third request.
  @gateway @CR-15.3
  Scenario Outline: a paid request whose upstream <failure> is answered <status>; its price and request id are given back
    Given a client with a balance of 10000 units
    When I send the payment payload '{"clientId":"$clientId","requestId":"upstream-<name>"}' to "GET /api/weather", and the upstream <failure>
    Then the gateway answers <status> itself
    When the upstream answers again
    And I send the payment payload '{"clientId":"$clientId","requestId":"upstream-<name>"}' to "GET /api/weather"
    Then the retry is served and deducted: creditsRemaining is 9500
    And the upstream ran the handler of the retry once, and never for the failed request
    When I send the payment payload '{"clientId":"$clientId","requestId":"upstream-<name>"}' to "GET /api/weather"
    Then the repeat of the retry is served free: creditsRemaining is 9500
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9000

    Examples:
      | failure                                 | status | name    |
      | refuses connections                     | 502    | refused |
      | resets the connection                   | 502    | reset   |
      | closes the connection without answering | 502    | close   |
      | sends an answer that is not HTTP        | 502    | invalid |
      | does not answer                         | 504    | stall   |

  @gateway @CR-15.2
  Scenario: a paid request reaches the upstream without its payment header, with X-Forwarded-For, -Proto and -Host
    Given a client with a balance of 10000 units
    When I spend with the clientId on "GET /api/weather", sending X-Forwarded-For "203.0.113.7"
    Then the request was served
    And the upstream received the request without a payment header
    And the upstream received X-Forwarded-For "203.0.113.7" followed by the kit's address, X-Forwarded-Proto "http" and X-Forwarded-Host the kit's Host

  @gateway @CR-15.2
  Scenario: a first payment reaches the upstream without its payment header, with X-Forwarded-For, -Proto and -Host
    Given a new card
    When I pay for "GET /api/weather" with the card
    Then the request was served
    And the upstream received the request without a payment header
    And the upstream received X-Forwarded-For the kit's address, X-Forwarded-Proto "http" and X-Forwarded-Host the kit's Host

  @gateway @CR-15.2
  Scenario: the gate's payment-response replaces the upstream's, and the fields Connection names are not forwarded
    Given a client with a balance of 10000 units
    When I spend with the clientId on "GET /api/weather", sending "Connection: close, X-Hop-Secret" and "X-Hop-Secret: 1", and the upstream answers with a payment-response of its own
    Then the answer carries one payment-response, the gate's: creditsRemaining is 9500
    And the upstream received no "X-Hop-Secret" header

  @gateway @CR-15.1
  Scenario: a paid request reaches the upstream with the path the gate matched and its query
    Given a client with a balance of 10000 units
    When I spend with the clientId on "GET /api/%77eather?city=Z%C3%BCrich&x=1"
    Then creditsRemaining is 9500
    And the upstream received "GET /api/weather?city=Z%C3%BCrich&x=1"

  @gateway @CR-15.1
  Scenario: a free request reaches the upstream as it was sent
    When I request "GET /free?q=100%&a=%7B%22" without a payment header
    Then the upstream received "GET /free?q=100%&a=%7B%22"

  # No charge without service: what the proxy refuses before the upstream is reached is not charged (CR-4.7).
  @gateway @CR-4.7 @CR-15.1
  Scenario: a paid request with a bare % in its query is served by the upstream, or refused with nothing deducted
    Given a client with a balance of 10000 units
    When I spend with the clientId on "GET /api/weather?q=100%"
    Then it was served by the upstream and deducted once, or refused with nothing deducted: after a balance of 10000, a spend on "GET /api/weather" tells
