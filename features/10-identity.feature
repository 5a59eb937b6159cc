Feature: Authentication and identity (spec §10)
  There are no accounts: the `payment` header is the only credential. The clientId is the hex
  HMAC-SHA256 of the card fingerprint keyed with the server secret, so the same card always gives the
  same client, and whoever presents a clientId spends its balance. Secrets never leave the target.

  @CR-10.1 @CR-7.3
  Scenario: no signup: a card payment alone creates the client
    Given a new card
    When I pay for "GET /api/weather" with the card
    Then the request was served
    And the clientId is the HMAC of the card's fingerprint

  @CR-10.2 @CR-6.2
  Scenario: whoever presents a clientId spends its balance
    Given a client with a balance of 10000 units
    When I send the payment payload '{"clientId":"$clientId"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 9500

  @CR-10.3 @CR-7.3 @CR-7.4
  Scenario: another payment method of the same card is the same client with the same balance
    Given a new card
    And I paid for "GET /api/weather" with the card
    And a second payment method for the card
    When I pay for "GET /api/weather" with the card's second payment method
    Then the request was served
    And the clientId is the HMAC of the card's fingerprint
    And creditsRemaining is 49000
    And the payment-response has no chargeId
    And no PaymentIntent was created

  @CR-10.3
  Scenario: two different cards are two different clients
    Given a new card
    And another new card
    And I paid for "GET /api/weather" with the card
    When I pay for "GET /api/weather" with the other card
    Then the request was served
    And the clientId is the HMAC of the other card's fingerprint
    And creditsRemaining is 49500

  @CR-10.4 @CR-6.1 @CR-13.17
  Scenario: a clientId is checked only by its shape and the balance
    When I send the payment payload '{"clientId":"$unknownClientId"}' to "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    When I send the payment payload '{"clientId":"0000000000000000000000000000000000000000000000000000000000000000"}' to "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"

  @CR-10.5
  Scenario: no answer discloses the secret key, the server secret or a card fingerprint
    Given a new card
    When I request "GET /api/weather" without a payment header
    And I pay for "GET /api/weather" with the card
    And I spend with the clientId on "GET /api/weather"
    And I send the payment header "YWJj" to "GET /api/weather"
    And I pay for "GET /api/weather" with the card and a top-up of 1 units
    And I send the payment payload '{"paymentMethodId":"pm_usBankAccount"}' to "GET /api/weather"
    Then no answer in this scenario contains a secret or a card fingerprint

  @CR-10.5 @shared-card
  Scenario: a declined card's answer discloses no fingerprint
    Given a new card with the number "4000000000000002"
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "card_declined"
    And no answer in this scenario contains a secret or a card fingerprint
