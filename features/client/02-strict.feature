Feature: A client pays only what its callback approved (spec §16, strict: CR-13.43)
  The callback is the caller's consent: a client pays once per approval and never on its own, shares one first
  payment among concurrent calls, keeps each clientId for its own server and presents it up front.

  @CR-16.7
  Scenario: a challenge answered to the paid request is returned, not paid again
    Given the server answers the next paid request with a challenge again
    When the client calls GET /api/weather on server A, the callback approving a top-up of 50000 units
    Then the call returned the challenge's 402 answer
    And exactly one request of the call carried a paymentMethodId
    And the callback was asked once

  @CR-16.8
  Scenario: five calls at once cause one charge
    Given the server takes 300 ms to charge a card
    When the client makes 5 calls to GET /api/cheap on server A at once, the callback approving a top-up of 50000 units
    Then the calls returned the handler's answer
    And the server charged 1 time in all

  @CR-16.9
  Scenario: a clientId is sent to no other server
    Given the client paid for GET /api/weather on server A
    When the client calls GET /api/weather on server B, the callback approving a top-up of 50000 units
    And the client calls GET /api/cheap on server A, the callback approving a top-up of 50000 units
    Then no request to server B carried the clientId server A gave
    And no request to server A carried the clientId server B gave

  @CR-16.9
  Scenario: a paying request redirected to another origin takes nothing of the payment there
    Given server A redirects every request carrying a payment to server B
    When the client calls GET /api/weather on server A, the callback approving a top-up of 50000 units
    Then the server received the call's request again with a payment of 50000 units
    And nothing of the payment to server A reached server B

  @CR-16.9
  Scenario: a request presenting a clientId, redirected to another origin, takes nothing of it there
    Given the client paid for GET /api/weather on server A
    And server A redirects every request carrying a payment to server B
    When the client calls GET /api/cheap on server A, the callback approving a top-up of 50000 units
    Then the call's first request carried the clientId server A gave
    And nothing of the payment to server A reached server B

  @CR-16.10
  Scenario: an insufficient-credits challenge goes to the callback, which declines
    Given the client paid for GET /api/weather on server A
    And server A drained the client's balance
    When the client calls GET /api/weather on server A, the callback declining
    Then no request of the call carried a paymentMethodId
    And the call returned the challenge's 402 answer
    And the callback received every insufficient_credits challenge the server sent

  @CR-16.10
  Scenario: a drained balance goes to the callback again, which approves a new top-up
    Given the client paid for GET /api/weather on server A
    And server A drained the client's balance
    When the client calls GET /api/weather on server A, the callback approving a top-up of 50000 units
    Then the callback received every insufficient_credits challenge the server sent
    And the server received the call's request again with a payment of 50000 units
    And the call returned the handler's answer

  @CR-16.11 @spending-limit
  Scenario: a payment beyond the spending limit is not sent
    # The driver's client was reset with a spending limit of 60000 units.
    When the client calls GET /api/weather on server A, the callback approving a top-up of 50000 units
    And the client calls GET /api/weather on server B, the callback approving a top-up of 50000 units
    Then server A received a payment and server B none
    And the call reported an error of kind "limit"

  @CR-16.14
  Scenario: a funded clientId is sent with the first request of each call
    Given the client paid for GET /api/weather on server A
    When the client calls GET /api/cheap on server A, the callback approving a top-up of 50000 units
    Then the call sent 1 request, with the clientId server A gave
    And the call returned the handler's answer
    When the client calls GET /api/weather on server A, the callback approving a top-up of 50000 units
    Then the call sent 1 request, with the clientId server A gave

  @CR-16.15
  Scenario: a declined challenge is returned after one request
    When the client calls GET /api/weather on server A, the callback declining
    Then the call returned the challenge's 402 answer
    And the call sent 1 request
    And the server charged 0 times in all

  @CR-16.16
  Scenario: the stripe element is used wherever it is, unknown members ignored
    Given the server's challenges list another scheme first, with unknown members everywhere
    When the client calls GET /api/weather on server A, the callback approving a top-up of 50000 units
    Then the callback received the challenge of GET /api/weather on server A
    And the server received the call's request again with a payment of 50000 units
    And the call returned the handler's answer
