Feature: Store outages and transaction records, through the target's control routes (spec §6–§8, §11, §13, §14)
  These scenarios need optional capabilities a target declares (harness/PROFILE.md, Capabilities): those tagged
  store-faults need `--declare capabilities=storeFaults` (POST /_conformance/store-faults makes the store fail for
  one clientId until DELETE), those tagged records need `capabilities=records` (GET /_conformance/records?clientId=…).
  Without them these scenarios are not run. "The store is back" removes the scenario's faults, once the processor's
  events of its charges (if the target's webhook is registered) have met the outage.

  @store-faults @CR-6.6 @CR-8.2 @CR-8.9 @CR-13.20
  Scenario: when the store fails the deduction, a clientId gets 503 service_unavailable and nothing is deducted
    Given a client with a balance of 10000 units
    And the store fails every deductBalance for the card's client
    When I spend with the clientId on "GET /api/weather"
    Then the answer is 503 service_unavailable with Retry-After 1
    And the handler did not run
    And no request reached the processor
    When the store is back
    And I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9500

  @store-faults @CR-6.6 @CR-8.2
  Scenario: a store failure on the credits path makes no processor call, even with a payment method in the payload
    Given a client with a balance of 10000 units
    And the store fails every deductBalance for the card's client
    When I send the payment payload '{"clientId":"$clientId","paymentMethodId":"$card","topUpAmount":50000}' to "GET /api/weather"
    Then the answer is 503 service_unavailable with Retry-After 1
    And the handler did not run
    And no request reached the processor
    When the store is back
    And I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9500

  @store-faults @CR-7.21 @CR-8.2 @CR-8.9 @CR-13.20
  Scenario Outline: a store failure in <step> of a first payment is answered 503 before any charge
    Given a new card
    And the store fails every <operation> for the card's client
    When I pay for "GET /api/weather" with the card
    Then the answer is 503 service_unavailable with Retry-After 1
    And the handler did not run
    And no PaymentIntent was created
    When the store is back
    And I pay for "GET /api/weather" with the card
    Then creditsRemaining is 49500
    And exactly one PaymentIntent succeeded in this scenario

    Examples:
      | operation     | step                                                   |
      | deductBalance | step 4 (spending an existing balance)                  |
      | getClient     | the read of topUps for the charge's idempotency key   |

  @store-faults @CR-7.22 @CR-13.20 @CR-8.2 @CR-8.9 @CR-7.23
  Scenario: a first payment whose credit fails is answered 503; its retry replays the charge and credits it once
    Given a new card
    And the store fails every creditTopUp for the card's client
    When I pay for "GET /api/weather" with the card
    Then the answer is 503 service_unavailable with Retry-After 1
    And the handler did not run
    And exactly one PaymentIntent succeeded in this scenario
    When the store is back
    And I pay for "GET /api/weather" with the card
    Then creditsRemaining is 49500
    And the chargeId is the PaymentIntent the processor created
    And its idempotency key is the first attempt's
    And exactly one PaymentIntent succeeded in this scenario
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49000

  # The retry is served from the balance, so no answer carries the charge as chargeId: the kit's audit then accepts the
  # charge only as credited by an acknowledged webhook event, which the robustness profile provides.
  @robustness @store-faults @CR-7.22 @CR-13.20 @CR-8.2
  Scenario: a first payment whose credit was applied but whose deduction failed is answered 503; its retry is served from the balance
    Given a new card
    And the store fails every deductBalance for the card's client after the first
    When I pay for "GET /api/weather" with the card
    Then the answer is 503 service_unavailable with Retry-After 1
    And the handler did not run
    When the store is back
    And I pay for "GET /api/weather" with the card
    Then creditsRemaining is 49500
    And the payment-response has no chargeId
    And no PaymentIntent was created
    And exactly one PaymentIntent succeeded in this scenario

  @robustness @store-faults @CR-14.3 @CR-14.2 @CR-7.22
  Scenario: a first payment answered 503 because its credit failed is credited by its event once the store is back
    Given a new card
    And the store fails every creditTopUp for the card's client
    When I pay for "GET /api/weather" with the card
    Then the answer is 503 service_unavailable with Retry-After 1
    And the target answered the charge's payment_intent.succeeded event with 5xx
    When the store is back
    And the processor delivers that event again 2 times
    And I pay for "GET /api/weather" with the card
    Then creditsRemaining is 49500
    And the payment-response has no chargeId
    And no PaymentIntent was created
    And exactly one PaymentIntent succeeded in this scenario

  @robustness @store-faults @CR-14.2 @CR-14.3
  Scenario: while the store fails, a verified payment_intent.succeeded event is answered 5xx and credits nothing
    Given a new card
    And the store fails every creditTopUp for the card's client
    When a PaymentIntent for a top-up of 50000 units for the card's client succeeds at the processor without the target
    Then the target answered the charge's payment_intent.succeeded event with 5xx
    When I spend with the clientId on "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    When the store is back
    And the processor delivers that event again 1 time
    And I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49500

  @records @CR-11.8 @CR-7.10 @CR-7.12 @CR-11.7 @CR-13.4 @CR-13.3
  Scenario: a first payment is recorded as one topup and one deduction
    Given a new card
    When I pay for "GET /api/weather" with the card and a top-up of 50001 units
    Then creditsRemaining is 49501
    And the client's transaction records are:
      | type      | amount | currency | paymentIntentId | resource         |
      | topup     | 50001  | usd      | $charge         |                  |
      | deduction | 500    | usd      |                 | GET /api/weather |
    And the client's record has balance 49501 usd and topUps 1
    And the client's balance is its top-ups minus its deductions

  @records @CR-11.8 @CR-6.2 @CR-11.7 @CR-13.4
  Scenario: spending records one deduction per served request with its route key, and none for a refused one
    Given a client with a balance of 2000 units
    And I note the client's transaction records
    When I spend with the clientId on "POST /api/translate"
    Then the response is the insufficient-credits challenge for "POST /api/translate"
    And the client's transaction records are as before
    When I spend with the clientId on "GET /api/nodesc"
    And I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 1499
    And the client's transaction records are as before plus:
      | type      | amount | currency | resource         |
      | deduction | 1      | usd      | GET /api/nodesc  |
      | deduction | 500    | usd      | GET /api/weather |
    And the client's balance is its top-ups minus its deductions

  @records @CR-11.7 @CR-13.3 @CR-11.8
  Scenario: the client record counts credited top-ups
    Given a client with a balance of 0 units
    Then the client's record has balance 0 usd and topUps 1
    When I pay for "GET /api/weather" with the card
    Then creditsRemaining is 49500
    And the client's record has balance 49500 usd and topUps 2
    And the client's balance is its top-ups minus its deductions

  @store-faults @records @CR-11.9 @CR-13.30 @CR-6.6 @CR-11.7
  Scenario: when the store cannot write the deduction's record, nothing is deducted and the answer is 503
    Given a new card
    And I paid for "GET /api/weather" with the card
    And I note the client's transaction records
    And the store fails every recordTransaction for the card's client
    When I spend with the clientId on "GET /api/weather"
    Then the answer is 503 service_unavailable with Retry-After 1
    And the handler did not run
    And the client's transaction records are as before
    And the client's record has balance 49500 usd and topUps 1
    When the store is back
    And I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49000
    And the client's transaction records are as before plus:
      | type      | amount | currency | resource         |
      | deduction | 500    | usd      | GET /api/weather |

  @store-faults @CR-6.9 @CR-8.12 @CR-13.41
  Scenario: a deduction whose reply was lost is not deducted again when its request is retried with the same request id
    Given a client with a balance of 10000 units
    And the store loses the reply of the next deductBalance for the card's client
    When I send the payment payload '{"clientId":"$clientId","requestId":"lost-reply"}' to "GET /api/weather"
    Then the answer is 503 service_unavailable with Retry-After 1
    And the 503 message does not say that nothing was deducted, since the deduction's outcome is unknown
    And the handler did not run
    When I send the payment payload '{"clientId":"$clientId","requestId":"lost-reply"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 9500
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9000

  # The store applies the deduction and then its one repeat, and loses both replies: the repeat's answer never reached
  # the client, so it must not be used up. A target may answer 503 for a while (the reference: while the lost repeat's
  # claim holds, 2 s); the retry is then served, from the balance, without a second deduction.
  @store-faults @CR-6.9
  Scenario: a repeat whose reply was lost is not used up: the retry after it is served, and deducted once in all
    Given a client with a balance of 10000 units
    And the store loses the replies of the next 2 deductBalance calls for the card's client
    When I send the payment payload '{"clientId":"$clientId","requestId":"lost-repeat"}' to "GET /api/weather"
    Then the answer is 503 service_unavailable with Retry-After 1
    And the handler did not run
    When I send the payment payload '{"clientId":"$clientId","requestId":"lost-repeat"}' to "GET /api/weather"
    Then the answer is 503 service_unavailable with Retry-After 1
    And the handler did not run
    When I send the payment payload '{"clientId":"$clientId","requestId":"lost-repeat"}' to "GET /api/weather" again while it is answered 503, for at most 10 s
    Then the request was served
    And creditsRemaining is 9500
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9000

  # The store holds the deduction far longer than the profile's maxStoreWaitMs (the longest the kit lets a target wait
  # for a store call), then lets it go on: a target that waits for the store as long as it hangs is caught, and so is
  # one whose deduction, reaching the store after the target stopped waiting, is still made and uses up the request
  # id's one repeat.
  @store-faults @CR-8.12 @CR-6.9
  Scenario: a deduction the store holds past the target's bound is answered 503 at that bound, and its retry after the hold is deducted once
    Given a client with a balance of 10000 units
    And the store holds the next deductBalance for the card's client 5000 ms, then lets it proceed
    When I send the payment payload '{"clientId":"$clientId","requestId":"held-deduction"}' to "GET /api/weather"
    Then the answer is 503 service_unavailable within the profile's maxStoreWaitMs, long before the store answers
    And the 503 message does not say that nothing was deducted, since the deduction's outcome is unknown
    And the handler did not run
    When the store's hold is over
    And I send the payment payload '{"clientId":"$clientId","requestId":"held-deduction"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 9500
    When I send the payment payload '{"clientId":"$clientId","requestId":"held-deduction"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 9500
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9000
