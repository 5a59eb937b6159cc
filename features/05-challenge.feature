Feature: Challenge (spec §5)
  A gated request without payment gets 402 with the price: the `payment-required` header carries
  base64 JSON equal to the JSON body. The challenge states the route's amount, minimum top-up,
  currency (defaults `usd` and 50000), the publishable key, the resource and protocol version 1,
  and nothing else.

  @CR-5.1 @CR-5.2 @CR-5.3 @CR-5.4 @CR-5.6 @CR-12.1 @CR-13.1 @CR-13.2 @CR-2.2 @CR-2.20 @CR-4.6
  Scenario Outline: the challenge for <route>
    When I request "<route>" without a payment header
    Then the response status is 402
    And the payment-required header decodes to exactly the body
    And the response is the challenge for "<route>"
    And the handler did not run

    Examples:
      | route               |
      | GET /api/weather    |
      | POST /api/translate |
      | GET /api/nodesc     |

  @CR-5.3 @CR-2.20 @CR-9.1 @CR-9.2 @CR-12.1
  Scenario: a route without currency and minimum top-up gets the defaults usd and 50000
    When I request "GET /api/weather" without a payment header
    Then the challenge asks for 500 units in "usd" with a minimum top-up of 50000 units
    And the challenge's resource url is "/api/weather"
    And the challenge's resource description is "Weather lookup"
    And the challenge's publishable key is the profile's
    And the challenge carries stripe402Version 1

  @CR-5.3 @CR-2.2
  Scenario: a route's own currency and minimum top-up are announced
    When I request "POST /api/translate" without a payment header
    Then the challenge asks for 2500 units in "eur" with a minimum top-up of 100000 units
    And the challenge's resource url is "/api/translate"
    And the challenge's resource description is "Translation"
    And the challenge's publishable key is the profile's

  @CR-5.2 @CR-5.3 @CR-3.3
  Scenario: a route without description has no description member
    When I request "GET /api/nodesc" without a payment header
    Then the challenge asks for 1 unit in "usd" with a minimum top-up of 50000 units
    And the challenge has no description
    And no protocol object in the response has a null member

  @CR-13.19
  Scenario: all plain challenges of a route are identical, whatever payload without clientId and paymentMethodId came
    When I request "GET /api/weather" with each of these payment payloads:
      | payload                |
      | (none)                 |
      | {}                     |
      | {"topUpAmount":50000}  |
      | {"topUpAmount":1}      |
      | {"note":"ignored"}     |
      | {"stripe402Version":1} |
    Then every answer is the challenge for "GET /api/weather"

  @CR-5.5 @CR-5.7 @CR-8.8 @CR-13.12 @CR-13.13
  Scenario: insufficient-credits challenges differ from the plain one only by error and message
    When I request "GET /api/weather" with each of these payment payloads:
      | payload                                            |
      | {"clientId":"$unknownClientId"}                    |
      | {"clientId":"not-a-client-id"}                     |
      | {"clientId":"$unknownClientId","topUpAmount":1}    |
      | {"stripe402Version":1,"clientId":"$unknownClientId"} |
    Then every answer is the insufficient-credits challenge for "GET /api/weather"

  @CR-5.8 @CR-6.3
  Scenario: a challenge is not preceded by any processor call
    Given a new card
    When I send the payment payload '{"clientId":"$clientId"}' to "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    And no request reached the processor

  @CR-13.19
  Scenario: a payload without clientId and paymentMethodId gets the plain challenge without any processor call
    Given a new card
    When I send the payment payload '{"topUpAmount":50000,"note":"$card"}' to "GET /api/weather"
    Then the response is the challenge for "GET /api/weather"
    And no request reached the processor
