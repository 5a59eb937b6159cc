Feature: A client keeps its clientIds across restarts (spec §16, robust)
  The robustness profile of a client: after the kit's `restart` instruction, the client made again from what it
  persisted presents the clientId it kept.

  @CR-16.17 @robustness
  Scenario: after a restart the kept clientId pays without a new charge
    Given the client paid for GET /api/weather on server A
    When the client is restarted
    And the client calls GET /api/cheap on server A, the callback approving a top-up of 50000 units
    Then the call was served by a deduction from the clientId server A gave
    And the server charged 1 time in all
