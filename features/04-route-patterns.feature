Feature: Route patterns (spec CR-4.11–CR-4.14)
  A route key's path may name one segment (`:id`) or the rest of the path (a final `*`); the most specific key
  that matches wins: a literal segment over a named one over the wildcard. The challenge and the PaymentIntent
  name the request path, never the pattern. The profile's handlers answer their parameters as `params` (the
  wildcard's as "*").
  Profile: `GET /api/users/me` (100), `GET /api/users/:id` (300, "User lookup"), `GET /api/files/:name` (250),
  `GET /api/files/*` (200).

  @CR-4.12 @CR-4.14 @CR-13.42
  Scenario: a named segment gates every id, and the challenge names the request path
    When I request "GET /api/users/42?fields=name" without a payment header
    Then the response is the challenge for "GET /api/users/42"
    And the challenge's resource url is "/api/users/42"
    And the handler of "GET /api/users/:id" did not run

  @CR-4.12 @CR-4.13 @CR-13.42
  Scenario Outline: <path> pays the price of <key>
    Given a client with a balance of 1000 units
    When I spend with the clientId on "GET <path>"
    Then the request was served
    And the handler of "<key>" ran
    And creditsRemaining is <left>

    Examples:
      | path                         | key                  | left |
      | /api/users/42                | GET /api/users/:id   | 700  |
      | /api/users/me                | GET /api/users/me    | 900  |
      | /api/files/report            | GET /api/files/:name | 750  |
      | /api/files/2026/report.pdf   | GET /api/files/*     | 800  |
      | /api/files/                  | GET /api/files/*     | 800  |

  @CR-4.12 @CR-13.42
  Scenario: the handler of a pattern route gets the segment it matched
    Given a client with a balance of 1000 units
    When I spend with the clientId on "GET /api/users/42"
    Then the request was served
    And the handler answered the parameter "id" as "42"

  @CR-4.12 @CR-13.42
  Scenario: the wildcard's handler gets the rest of the path
    Given a client with a balance of 1000 units
    When I spend with the clientId on "GET /api/files/2026/report.pdf"
    Then the request was served
    And the handler answered the parameter "*" as "2026/report.pdf"

  @CR-4.12 @CR-4.9 @CR-13.42
  Scenario Outline: "GET <path>" matches no pattern and is free (<why>)
    When I request "GET <path>" without a payment header
    Then the request was not gated
    And the handler of "GET /api/users/:id" did not run
    And the handler of "GET /api/files/*" did not run

    Examples:
      | path             | why                                     |
      | /api/users/      | an empty segment is no segment          |
      | /api/users/42/x  | an extra segment                        |
      | /api/users/42/   | a trailing slash is an extra segment    |
      | /api/users       | a missing segment                       |
      | /api/files       | the wildcard needs its slash            |
      | /API/users/42    | literal segments keep their case        |

  @CR-4.8
  Scenario: HEAD follows the GET pattern
    When I request "HEAD /api/users/42" without a payment header
    Then the response status is 402

  @CR-4.14 @CR-13.42
  Scenario: without a description the PaymentIntent names the request path, not the pattern
    Given a new card
    When I pay for "GET /api/files/2026/report.pdf" with the card
    Then the request was served
    And the handler of "GET /api/files/*" ran
    And the PaymentIntent's description is "$serviceName top-up for /api/files/2026/report.pdf"

  @CR-4.14 @CR-6.9 @CR-13.42
  Scenario: a requestId spent on one id of a pattern is refused on another id of it
    Given a client with a balance of 1000 units
    When I send the payment payload '{"clientId":"$clientId","requestId":"pattern-1"}' to "GET /api/users/1"
    And I send the payment payload '{"clientId":"$clientId","requestId":"pattern-1"}' to "GET /api/users/2"
    Then the answer is the payment error "invalid_payment"
    And the error message contains "requestId"
    And the handler did not run
