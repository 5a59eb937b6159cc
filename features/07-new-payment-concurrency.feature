@atomicity
Feature: Concurrent first payments with the same card (spec §7)
  The same new card pays for several requests at once. Concurrent charges of the same request send the
  same idempotency key, so the processor replays one PaymentIntent; a PaymentIntent is credited at most
  once, whatever the interleaving. (A request may also find the first credit and be served from it.)

  @CR-7.23 @CR-7.16 @CR-7.24 @CR-13.22
  Scenario: 5 first payments at once with one card are each served, and every charge is credited once
    Given a new card
    When I pay for "GET /api/weather" with the card 5 times at once
    Then all 5 answers were served
    And every chargeId names a PaymentIntent the processor charged
    And each PaymentIntent charged was credited exactly once: a further request on "GET /api/weather" leaves their top-ups minus 6 prices
