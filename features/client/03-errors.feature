Feature: A client meets unavailable and broken servers (spec §16, strict: CR-13.43)
  A 503 is sent again at most once, with the same payment and its requestId; a header the client cannot read is the
  server's error, never a reason to pay or to keep a clientId.

  @CR-16.12
  Scenario: a 503 service_unavailable is sent again at most once, with the same payment
    Given the client paid for GET /api/weather on server A
    And the server answers every gated request 503 service_unavailable
    When the client calls GET /api/weather on server A, the callback approving a top-up of 50000 units
    Then the call sent at most 2 requests
    And a repeated request carried the same payment, with a requestId
    And the call reported the payment error "service_unavailable"

  @CR-16.13
  Scenario Outline: a broken payment-required header (<broken>) is an error of the server
    Given the server's challenges carry a broken payment-required: "<broken>"
    When the client calls GET /api/weather on server A, the callback approving a top-up of 50000 units
    Then no request of the call carried a paymentMethodId
    And the call reported an error of kind "protocol"

    Examples:
      | broken              |
      | not base64          |
      | base64 of non-JSON  |
      | no publishableKey   |
      | no minTopUp         |
      | amount not a number |
      | no stripe element   |

  @CR-16.13
  Scenario Outline: a broken payment-response header (<broken>) is an error of the server, and its clientId is not kept
    Given the server answers the next charged request with a broken payment-response: "<broken>"
    When the client calls GET /api/weather on server A, the callback approving a top-up of 50000 units
    Then the call reported an error of kind "protocol"
    And no request of the call carried a new payment after the broken answer
    When the client calls GET /api/cheap on server A, the callback approving a top-up of 50000 units
    Then no request carried a clientId from the broken answer

    Examples:
      | broken              |
      | not base64          |
      | clientId not 64 hex |
      | success false       |
