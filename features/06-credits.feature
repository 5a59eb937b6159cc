Feature: Credits path (spec §6)
  A payload with a clientId spends from that client's balance: the price is deducted, the handler runs,
  and `payment-response` reports the new balance. The processor is not involved. When the balance is
  too low, the client gets the insufficient-credits challenge, unless the payload also carries a
  payment method, which then tops up.
  "A client with a balance of N units" is a new card that paid once and spent down to exactly N.

  @CR-6.2 @CR-1.2 @CR-10.2 @CR-12.3 @CR-13.28
  Scenario: a clientId spends from its balance without the processor
    Given a client with a balance of 10000 units
    When I spend with the clientId on "GET /api/weather"
    Then the request was served
    And the payment-response has exactly the members "success, creditsRemaining, clientId"
    And creditsRemaining is 9500
    And the clientId is the HMAC of the card's fingerprint
    And no request reached the processor

  @CR-6.2
  Scenario: each route deducts exactly its own price
    Given a client with a balance of 10000 units
    When I spend with the clientId on "GET /api/nodesc"
    Then creditsRemaining is 9999
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9499
    When I spend with the clientId on "GET /api/nodesc"
    Then creditsRemaining is 9498

  @CR-6.2 @CR-3.11 @CR-13.31
  Scenario Outline: paymentMethodId and topUpAmount <topUp> are ignored while the balance suffices
    Given a client with a balance of 10000 units
    And another new card
    When I send the payment payload '{"clientId":"$clientId","paymentMethodId":"$otherCard","topUpAmount":<topUp>}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 9500
    And the payment-response has no chargeId
    And no request reached the processor

    Examples:
      | topUp      |
      | 1          |
      | 49999      |
      | 50000      |
      | 9999999901 |

  @CR-6.3 @CR-5.5 @CR-5.8 @CR-8.8 @CR-8.3
  Scenario: a balance below the price gets the insufficient-credits challenge and is kept
    Given a client with a balance of 2000 units
    When I spend with the clientId on "POST /api/translate"
    Then the response is the insufficient-credits challenge for "POST /api/translate"
    And the handler did not run
    And no request reached the processor
    When I spend with the clientId on "GET /api/weather"
    Then the request was served
    And creditsRemaining is 1500

  @CR-6.3 @CR-10.4
  Scenario: an unknown clientId gets the insufficient-credits challenge
    When I send the payment payload '{"clientId":"$unknownClientId"}' to "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    And the handler did not run

  @CR-6.1 @CR-13.17
  Scenario Outline: a clientId not shaped as 64 lowercase hex is unknown (<shape>)
    Given a client with a balance of 10000 units
    When I send the payment payload '{"clientId":"<clientId>"}' to "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    And the handler did not run
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9500

    Examples:
      | shape                       | clientId        |
      | the funded one in uppercase | $upperClientId  |
      | 63 hex digits               | $shortClientId  |
      | 65 hex digits               | $clientId0      |
      | with a leading space        | \u0020$clientId |
      | not hex at all              | not-a-client-id |

  @CR-6.4 @CR-7.1
  Scenario: a payment method in the payload tops up when the balance is too low
    Given a client with a balance of 200 units
    When I send the payment payload '{"clientId":"$clientId","paymentMethodId":"$card"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 49700
    And the clientId is the HMAC of the card's fingerprint
    And the processor created exactly 1 PaymentIntent
    And the PaymentIntent has amount 500 and currency "usd"

  @CR-6.4 @CR-7.25 @CR-13.32
  Scenario: the top-up is credited to the card's client, not to the payload's clientId
    Given a client with a balance of 2000 units
    And another new card
    When I send the payment payload '{"clientId":"$clientId","paymentMethodId":"$otherCard"}' to "POST /api/translate"
    Then the request was served
    And the clientId is the HMAC of the other card's fingerprint
    And creditsRemaining is 97500
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 1500

  @CR-6.8 @CR-13.40
  Scenario: balances are kept per currency: a balance in eur does not pay for a usd route, and a usd top-up leaves it untouched
    Given a new card
    When I pay for "POST /api/translate" with the card
    Then creditsRemaining is 97500
    When I spend with the clientId on "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    And the handler did not run
    When I send the payment payload '{"clientId":"$clientId","paymentMethodId":"$card"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 49500
    And the PaymentIntent has amount 500 and currency "usd"
    When I spend with the clientId on "POST /api/translate"
    Then creditsRemaining is 95000
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49000

  # The served repeat is confirmed once its answer was written, which may be after the client read it: the next request
  # with the id may meet the repeat's claim and be answered 503 for a while (CR-6.9: at most 10 s), then invalid_payment.
  @CR-6.9 @CR-13.41
  Scenario: a request id is deducted once: its first retry is served without a deduction, any later use is refused
    Given a client with a balance of 10000 units
    When I send the payment payload '{"clientId":"$clientId","requestId":"retry-1"}' to "GET /api/weather"
    Then creditsRemaining is 9500
    When I send the payment payload '{"clientId":"$clientId","requestId":"retry-1"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 9500
    When I send the payment payload '{"clientId":"$clientId","requestId":"retry-1"}' to "GET /api/weather" again while it is answered 503, for at most 10 s
    Then the answer is the payment error "invalid_payment"
    And the error message contains "requestId"
    And the handler did not run
    When I send the payment payload '{"clientId":"$clientId","requestId":"retry-2"}' to "GET /api/weather"
    Then creditsRemaining is 9000
    When I send the payment payload '{"clientId":"$clientId","requestId":"retry-2"}' to "GET /api/nodesc"
    Then the answer is the payment error "invalid_payment"
    And the handler did not run
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 8500

  @CR-6.9 @CR-13.41
  Scenario: a request id whose deduction failed for want of credits is not kept
    Given a client with a balance of 200 units
    When I send the payment payload '{"clientId":"$clientId","requestId":"topped-up"}' to "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    When I send the payment payload '{"clientId":"$clientId","paymentMethodId":"$card","requestId":"topped-up"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 49700
    When I send the payment payload '{"clientId":"$clientId","paymentMethodId":"$card","requestId":"topped-up"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 49700
    And no request reached the processor
