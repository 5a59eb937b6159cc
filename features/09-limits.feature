Feature: Limits (spec §9)
  Amounts are integer units: 10000 units are one major unit, 100 units one minor unit, rounded up when
  charged. Top-ups run from the route's minimum (default 50000) to its maximum (default and ceiling
  9999999900 units = 99999999 minor units, the processor's largest charge).

  @CR-9.4 @CR-7.1 @CR-7.14 @CR-13.15
  Scenario: the largest top-up is accepted and charged 99999999 minor units
    Given a new card
    When I pay for "GET /api/weather" with the card and a top-up of 9999999900 units
    Then the request was served
    And creditsRemaining is 9999999400
    And the PaymentIntent has amount 99999999 and currency "usd"

  @CR-9.4 @CR-13.15
  Scenario Outline: a top-up of <topUp> units is above the maximum: invalid_payment, nothing asked of the processor
    Given a new card
    When I send the payment payload '{"paymentMethodId":"$card","topUpAmount":<topUp>}' to "GET /api/weather"
    Then the answer is the payment error "invalid_payment"
    And the error message contains "topUpAmount"
    And the handler did not run
    And no request reached the processor

    Examples:
      | topUp            |
      | 9999999901       |
      | 10000000000      |
      | 9007199254740991 |

  @CR-9.1 @CR-9.2 @CR-9.3 @CR-1.3
  Scenario: without a top-up amount the default minimum of 50000 units is charged as 500 cents of usd
    Given a new card
    When I pay for "GET /api/nodesc" with the card
    Then the request was served
    And creditsRemaining is 49999
    And the PaymentIntent has amount 500 and currency "usd"

  @CR-9.3 @CR-9.5 @CR-1.3
  Scenario: a top-up that is not a whole cent is rounded up when charged and credited in full
    Given a new card
    When I pay for "POST /api/translate" with the card and a top-up of 100099 units
    Then the request was served
    And creditsRemaining is 97599
    And the PaymentIntent has amount 1001 and currency "eur"
