Feature: Versioning (spec §12)
  This is protocol version 1, wire-compatible with stripe402 version 1. Every challenge says
  `stripe402Version: 1`; a payload may say it too (absent means 1) and any other value is refused;
  a PaymentResponse carries no version.

  @CR-12.1
  Scenario: the insufficient-credits challenge also carries stripe402Version 1
    When I send the payment payload '{"clientId":"$unknownClientId"}' to "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    And the challenge carries stripe402Version 1

  @CR-12.2 @CR-12.5 @CR-12.3
  Scenario: payloads of a stripe402 version 1 client are accepted
    Given a new card
    When I send the payment payload '{"stripe402Version":1,"paymentMethodId":"$card","topUpAmount":50000}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 49500
    And the payment-response has no "stripe402Version" member
    When I send the payment payload '{"stripe402Version":1,"clientId":"$clientId"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 49000
    And the payment-response has no "stripe402Version" member

  @CR-12.5 @CR-13.16
  Scenario: the stripe402 example header of a clientId nobody funded gets the insufficient-credits challenge
    When I send the payment header "eyJzdHJpcGU0MDJWZXJzaW9uIjoxLCJjbGllbnRJZCI6IjdmZGU2YzI2NWFmZTExZTAzMzE0N2NlMDY2OWJkMDA1N2U1MTg1MDZhODEzMDE4OTY3NWQ2YzQyZGIwZTY5MGMifQ==" to "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"

  @CR-12.2 @CR-3.8 @CR-13.16
  Scenario Outline: a payload with stripe402Version <version> is invalid and names the member
    Given a new card
    When I send the payment payload '{"stripe402Version":<version>,"paymentMethodId":"$card"}' to "GET /api/weather"
    Then the answer is the payment error "invalid_payment"
    And the error message contains "stripe402Version"
    And the handler did not run
    And no request reached the processor

    Examples:
      | version |
      | 2       |
      | 0       |
      | -1      |
      | 1.5     |
      | "1"     |
      | null    |
      | true    |
      | [1]     |

  @CR-12.3 @CR-8.1
  Scenario: a payment error carries no version member
    When I send the payment header "YWJj" to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" with message "Malformed payment header"
