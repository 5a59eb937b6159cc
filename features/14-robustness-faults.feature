@robustness @faults
Feature: Robustness profile: a processor that answers late or not at all (spec §14)
  The client's retry of a payment whose charge may have happened at the processor never makes a second
  charge: the retry sends the first attempt's idempotency key, or is served from the balance the first
  attempt (or its event) credited.

  @CR-14.8 @CR-7.16 @CR-7.23
  Scenario: the client gives up while the processor is still charging, then retries: one charge
    Given a new card
    And the processor delays the next PaymentIntent creation for the card by 2000 ms
    When I pay for "GET /api/weather" with the card and give up after 1000 ms
    And I pay for "GET /api/weather" with the card
    Then the retry was served from the single top-up of 50000 units, the abandoned request served or not
    And exactly one PaymentIntent succeeded in this scenario
    And every PaymentIntent creation in this scenario carries the first attempt's idempotency key
    When I spend with the clientId on "GET /api/weather" once more

  @CR-14.8 @CR-7.20 @CR-7.16
  Scenario: a PaymentIntent creation that times out is answered payment_failed, and the retry charges once
    Given a new card
    And the processor times out every PaymentIntent creation for the card until the target answers
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "payment_failed"
    When I pay for "GET /api/weather" with the card
    Then creditsRemaining is 49500
    And exactly one PaymentIntent succeeded in this scenario
    And every PaymentIntent creation in this scenario carries the first attempt's idempotency key
