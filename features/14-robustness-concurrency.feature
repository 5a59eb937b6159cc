@robustness @atomicity
Feature: Robustness profile: one charge per client at a time (spec §14)
  Concurrent first payments of one new card are serialised per clientId: one charges, the others wait and
  are served from the new balance (or, past the target's wait bound, refused with 503 service_unavailable,
  nothing charged or deducted). The processor holds the PaymentIntent creations until all have arrived, so
  that a target charging concurrently is caught in every run; a serialising target sends one, let go after
  the hold.

  @CR-14.7 @CR-7.4 @CR-7.23
  Scenario: 10 first payments at once with one new card make one charge
    Given a new card
    And the processor holds the first 10 PaymentIntent creations for the card together (at most 1000 ms)
    When I pay for "GET /api/weather" with the card 10 times at once
    Then every answer was served or refused with 503 service_unavailable, and the served ones used one top-up of 50000 units
    And the processor created exactly 1 PaymentIntent
    And a further request with the clientId on "GET /api/weather" leaves 50000 units minus a price for each served answer and itself
