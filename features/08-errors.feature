Feature: Errors (spec §8, with §7.2, §7.7 and §7.20)
  Every payment error is a 402 whose JSON body has exactly success false, creditsRemaining 0,
  clientId "", a message in `error` and a code in `errorCode`, and no protocol header. Card errors are
  `card_declined` with the processor's message verbatim; every other processor failure is
  `payment_failed`, with `Payment processing failed` rather than the processor's message (strict,
  CR-13.37). Nothing is credited and the handler does not run.

  @CR-7.20 @CR-8.1 @CR-8.3 @CR-8.6 @CR-13.24 @shared-card
  Scenario Outline: a card that is <outcome> is card_declined with the processor's message
    Given a new card with the number "<number>"
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "card_declined" with message "<message>"
    And the error message is the processor's message
    And the handler did not run
    And no PaymentIntent succeeded in this scenario

    Examples:
      | outcome                | number           | message                                                                  |
      | declined               | 4000000000000002 | Your card was declined.                                                  |
      | short of funds         | 4000000000009995 | Your card has insufficient funds.                                        |
      | expired                | 4000000000000069 | Your card has expired.                                                   |
      | hit by a processing error | 4000000000000119 | An error occurred while processing your card. Try again in a little bit. |

  @CR-7.20 @CR-8.6 @shared-card
  Scenario: a declined card credits nothing
    Given a new card with the number "4000000000000002"
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "card_declined"
    When I spend with the clientId on "GET /api/nodesc"
    Then the response is the insufficient-credits challenge for "GET /api/nodesc"

  @CR-7.7 @CR-8.7 @CR-8.3 @CR-13.24 @shared-card
  Scenario: a card that needs authentication fails with "Payment processing failed" and credits nothing
    Given a new card with the number "4000002500003155"
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "payment_failed" with message "Payment processing failed"
    And the handler did not run
    And the processor created exactly 1 PaymentIntent
    And no PaymentIntent succeeded in this scenario
    When I spend with the clientId on "GET /api/nodesc"
    Then the response is the insufficient-credits challenge for "GET /api/nodesc"

  @faults @CR-7.20 @CR-8.7
  Scenario Outline: a processor that <fault> the PaymentIntent creation gives payment_failed and no credit
    Given a new card
    And the processor <fault> every PaymentIntent creation for the card until the target answers
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "payment_failed"
    And the handler did not run
    And no PaymentIntent succeeded in this scenario
    When I spend with the clientId on "GET /api/nodesc"
    Then the response is the insufficient-credits challenge for "GET /api/nodesc"

    Examples:
      | fault                    |
      | answers 500 to           |
      | resets the connection of |
      | times out                |

  @faults @CR-7.20 @CR-8.7 @CR-13.37
  Scenario: a processor error on the PaymentIntent gives payment_failed with the fixed message, not the processor's
    Given a new card
    And the processor answers 500 to every PaymentIntent creation for the card until the target answers
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "payment_failed"
    And the error message is "Payment processing failed", not the processor's message, where CR-13.37 overrides the source

  @faults @CR-7.2 @CR-7.20 @CR-7.26 @CR-8.7 @CR-13.37
  Scenario: a processor error while retrieving the payment method stops before any customer or charge
    Given a new card
    And the processor answers 500 to every retrieval of the card until the target answers
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "payment_failed"
    And the error message is "Payment processing failed", not the processor's message, where CR-13.37 overrides the source
    And the handler did not run
    And the processor made no customer request
    And no PaymentIntent was created

  @faults @CR-7.5 @CR-7.20 @CR-7.26 @CR-8.7
  Scenario: a processor error while searching the customer stops before any charge
    Given a new card
    And the processor answers 500 to every customer search for the card's client until the target answers
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "payment_failed"
    And the handler did not run
    And no PaymentIntent was created

  @CR-13.24
  Scenario: a payment method without a card fingerprint gives payment_failed before any customer or charge
    When I send the payment payload '{"paymentMethodId":"pm_usBankAccount"}' to "GET /api/weather"
    Then the answer is the payment error "payment_failed" with message "Payment processing failed"
    And the handler did not run
    And the processor made no customer request
    And no PaymentIntent was created

  @CR-7.2 @CR-7.26 @CR-8.7 @CR-13.24 @CR-13.37
  Scenario: an unknown payment method gives payment_failed with the fixed message, not the processor's
    When I send the payment payload '{"paymentMethodId":"$unknownPaymentMethod"}' to "GET /api/weather"
    Then the answer is the payment error "payment_failed"
    And the error message is "Payment processing failed", not the processor's message, where CR-13.37 overrides the source
    And the handler did not run
    And the processor made no customer request
    And no PaymentIntent was created

  @CR-7.27 @CR-13.37
  Scenario Outline: a paymentMethodId that is not a PaymentMethod id (<shape>) is invalid_payment naming it and never reaches the processor
    Given a new card
    When I send the payment payload '{"paymentMethodId":"<value>"}' to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" naming "paymentMethodId", where CR-7.27 overrides the source's "payment_failed"
    And the handler did not run
    And no request reached the processor
    When I spend with the clientId on "GET /api/nodesc"
    Then the response is the insufficient-credits challenge for "GET /api/nodesc"

    Examples:
      | shape                    | value |
      | a path                   | .. |
      | a path after pm_         | pm_../x |
      | the card's id and a path | $card/.. |
      | a space                  | $card x |
      | 300 characters           | pm_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa |
