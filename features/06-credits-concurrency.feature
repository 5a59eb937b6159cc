@atomicity
Feature: Concurrent spending never overdraws (spec §6)
  Many requests with the same clientId arrive at once. Exactly as many are served as the balance
  pays for; the others get the insufficient-credits challenge, and no deduction is lost or doubled.

  @CR-6.7 @CR-6.2 @CR-6.3
  Scenario: 50 requests at once against a balance worth 20 of them
    Given a client with a balance of 10000 units
    When I send 50 requests at once with the clientId to "GET /api/weather"
    Then exactly 20 of the answers were served
    And the other 30 answers are the insufficient-credits challenge for "GET /api/weather"
    And the served creditsRemaining values are the multiples of 500 from 0 to 9500, each once
    When I spend with the clientId on "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"

  # Every request is written in the same instant on a connection of its own, so that a target whose store handles
  # what arrives together as one batch (a pipeline, a multi-statement round trip) gets them in one batch.
  @CR-6.2 @CR-6.3
  Scenario: 20 clients spending at once each get their own outcome and keep their own balance
    Given 10 clients that each paid once for "GET /api/weather" with a top-up of its own, and 10 new cards that never paid
    When every one of them spends with its clientId on "GET /api/weather", all at once
    Then each client whose balance pays for "GET /api/weather" is served with its own clientId and its own balance minus the price, and each other one gets the insufficient-credits challenge
    When every one of them spends with its clientId on "GET /api/weather" again, one after another
    Then each client whose balance pays for "GET /api/weather" is served with its own clientId and its own balance minus the price, and each other one gets the insufficient-credits challenge
