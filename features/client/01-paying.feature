Feature: A client pays (spec §16, wire)
  The client under test meets the kit's challenges, asks its callback, pays and keeps the clientId it is given.
  The kit's scripted server answers as a seed-following server does and records every request; the client's driver
  reports what each call returned and what the callback received. Every callback that approves pays with the payment
  method "pm_kit_card".

  @CR-16.1 @CR-16.2
  Scenario: a challenge is handed to the callback and paid
    When the client calls GET /api/weather on server A, the callback approving a top-up of 50000 units
    Then the callback received the challenge of GET /api/weather on server A
    And the server received the call's request again with a payment of 50000 units
    And the call returned the handler's answer

  @CR-16.2
  Scenario: the paid request keeps the call's method, path, query and body
    When the client calls POST /api/echo?city=Z%C3%BCrich&x=1 on server A with the body '{"q": "why?", "n": 1}', the callback approving a top-up of 60000 units
    Then the server received the call's request again with a payment of 60000 units
    And the call returned the handler's answer

  @CR-16.2
  Scenario: the paid request keeps the headers the caller set
    When the client calls GET /api/weather on server A with these headers, the callback approving a top-up of 50000 units
      | authorization   | Bearer caller-token |
      | accept          | application/json    |
      | accept-language | de-CH               |
      | x-caller-trace  | 7f3a-kit            |
    Then the server received the call's request again with the headers the caller set
    And the server received the call's request again with a payment of 50000 units
    And the call returned the handler's answer

  @CR-16.3
  Scenario: a top-up below the minimum is not sent
    When the client calls GET /api/weather on server A, the callback approving a top-up of 10000 units
    Then no request carried a top-up below 50000 units

  @CR-16.4
  Scenario: the clientId of a payment pays the next call without a new charge
    Given the client paid for GET /api/weather on server A
    When the client calls GET /api/cheap on server A, the callback approving a top-up of 50000 units
    Then the call was served by a deduction from the clientId server A gave
    And the server charged 1 time in all

  @CR-16.5
  Scenario Outline: a payment error "<code>" ends the call
    Given the server answers the next paid request with the payment error "<code>"
    When the client calls GET /api/weather on server A, the callback approving a top-up of 50000 units
    Then the call reported the payment error "<code>" with the server's message
    And the server received nothing of the call after the payment error

    Examples:
      | code                 |
      | card_declined        |
      | payment_failed       |
      | invalid_payment      |
      | top_up_below_minimum |

  @CR-16.6
  Scenario Outline: an answer that is not a challenge (<status> on <path>) is returned as it is
    When the client calls GET <path> on server A, the callback approving a top-up of 50000 units
    Then the call returned status <status> and the server's body
    And the call sent 1 request
    And no request of the call carried a paymentMethodId

    Examples:
      | path     | status |
      | /free    | 200    |
      | /missing | 404    |
      | /broken  | 500    |
