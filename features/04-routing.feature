Feature: Routing (spec §4)
  A request is gated when `<METHOD> <path>` — its method and its path without the query, byte for
  byte — is a key of the configured routes; HEAD follows a gated GET. Every other request is free and
  goes to the application untouched: the `payment` header is not even read.
  Profile: gated `GET /api/weather`, `POST /api/translate`, `GET /api/nodesc`; free `GET /free` and `POST /api/weather`.

  @CR-4.4 @CR-1.5 @CR-13.29
  Scenario: a free route is passed to the application untouched
    When I request "GET /free" without a payment header
    Then the handler of "GET /free" ran
    And the request was not gated

  @CR-4.4 @CR-13.29
  Scenario Outline: a free route ignores any payment header, even a malformed one (<value>)
    When I send the payment header "<value>" to "GET /free"
    Then the handler of "GET /free" ran
    And the request was not gated

    Examples:
      | value     |
      |           |
      | %%%       |
      | e30==     |
      | e30=,e30= |
      | bnVsbA==  |
      | e30=      |

  @CR-4.4 @CR-13.29
  Scenario: a free route never charges a payment
    Given a new card
    When I pay for "GET /free" with the card
    Then the handler of "GET /free" ran
    And the request was not gated
    And no request reached the processor

  @CR-4.2 @CR-4.3 @CR-4.4 @CR-13.25
  Scenario: the same path with another method is free
    Given a new card
    When I pay for "POST /api/weather" with the card
    Then the handler of "POST /api/weather" ran
    And the request was not gated
    And no request reached the processor

  @CR-4.2 @CR-4.3 @CR-4.9 @CR-13.25
  Scenario Outline: "GET <target>" is not "GET /api/weather" and never reaches its handler (<why>)
    When I request "GET <target>" without a payment header
    Then the request was not gated
    And the handler of "GET /api/weather" did not run

    Examples:
      | target          | why                                  |
      | /api/weather/   | trailing slash                       |
      | /API/weather    | case of the path                     |
      | /api/%57eather  | decoding keeps case (W is not w)     |
      | /api%2Fweather  | an encoded slash is not decoded      |
      | //api/weather   | no merging of slashes                |
      | /api/weathe     | a prefix is not the path             |

  @CR-13.25
  Scenario Outline: percent-encoded unreserved characters are decoded before matching (<target>)
    When I request "GET <target>" without a payment header
    Then the response is the challenge for "GET /api/weather"
    And the handler did not run

    Examples:
      | target          |
      | /api/%77eather  |
      | /api/we%61ther  |
      | /%61pi/weather  |

  @CR-1.4 @CR-4.1 @CR-4.2 @CR-4.3 @CR-5.2
  Scenario: the query string is not part of the route key
    When I request "GET /api/weather?city=Oslo" without a payment header
    Then the response is the challenge for "GET /api/weather"
    And the challenge's resource url is "/api/weather"

  @CR-4.2 @CR-4.3
  Scenario: a paid request with a query string is served and charged like the route
    Given a new card
    When I pay for "GET /api/weather?city=Oslo&units=metric" with the card
    Then the request was served
    And creditsRemaining is 49500

  @CR-4.2
  Scenario: an absolute-form request target is matched on its path
    When I request "GET /api/weather?city=Oslo" in absolute form without a payment header
    Then the response is the challenge for "GET /api/weather"
    And the challenge's resource url is "/api/weather"

  @CR-4.5 @CR-4.6 @CR-1.5 @CR-1.6
  Scenario Outline: the gated route <route> is never served unpaid
    When I request "<route>" without a payment header
    Then the response status is 402
    And the handler did not run

    Examples:
      | route               |
      | GET /api/weather    |
      | POST /api/translate |
      | GET /api/nodesc     |

  @CR-4.8
  Scenario: HEAD on a gated GET path gets the GET route's challenge
    When I request "HEAD /api/weather" without a payment header
    Then the response is the challenge for "GET /api/weather"
    And the handler did not run

  @CR-4.8
  Scenario: HEAD on a gated GET path is charged the GET route's price
    Given a client with a balance of 10000 units
    When I spend with the clientId on "HEAD /api/weather"
    Then the request was served
    And creditsRemaining is 9500

  @CR-13.19
  Scenario Outline: a payload without clientId and paymentMethodId gets the plain challenge (<payload>)
    When I send the payment payload '<payload>' to "GET /api/weather"
    Then the response is the challenge for "GET /api/weather"
    And the handler did not run

    Examples:
      | payload                                |
      | {}                                     |
      | {"topUpAmount":50000}                  |
      | {"stripe402Version":1}                 |
      | {"note":"hello","topUpAmount":1}       |

  @CR-4.5 @CR-6.2
  Scenario: clientId is tried before paymentMethodId
    Given a client with a balance of 10000 units
    And another new card
    When I send the payment payload '{"paymentMethodId":"$otherCard","clientId":"$clientId"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 9500
    And the clientId is the HMAC of the card's fingerprint
    And no request reached the processor
