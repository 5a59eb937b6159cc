@atomicity
Feature: Concurrent first payments with the same card (spec §7)
  The same new card pays for several requests at once. Concurrent charges of the same request send the
  same idempotency key, so the processor replays one PaymentIntent; a PaymentIntent is credited at most
  once, whatever the interleaving. (A request may also find the first credit and be served from it.)
  The processor holds the PaymentIntent creations until all have arrived, so that every run sees the
  same race: a target that charges concurrently has them all in flight together, before any credit; one
  that serialises payments per client sends one, which is let go after the hold. Money first: the charges are
  judged before the answers, so a failure names the charges.

  @CR-7.23 @CR-7.16 @CR-7.24 @CR-13.22
  Scenario: 5 first payments at once with one card are each served, and every charge is credited once
    Given a new card
    And the processor holds the first 5 PaymentIntent creations for the card together (at most 1000 ms)
    When I pay for "GET /api/weather" with the card 5 times at once
    Then the PaymentIntent creations the processor held together carry one idempotency key
    And all 5 answers were served
    And every chargeId names a PaymentIntent the processor charged
    And each PaymentIntent charged was credited exactly once: a further request on "GET /api/weather" leaves their top-ups minus 6 prices
