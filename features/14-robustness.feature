@robustness
Feature: Robustness profile: money settled by processor events (spec §14)
  A target that declares the robustness profile answers POST <webhookPath> itself. The emulator delivers its
  events (`payment_intent.succeeded`, `charge.refunded`, `charge.dispute.created`) there, signed with the
  profile's stripeWebhookSecret; the harness also signs and delivers events itself, to choose their order
  and their signatures: events about objects it made at the processor (their deliveries held at the
  emulator), since the target acts on the objects it retrieves, not on the event body, and forged events
  about objects the processor does not have. Balances are read by spending with the clientId. Targets
  without the profile run with --tags "not @robustness".

  @CR-14.3 @CR-14.2
  Scenario: a top-up charged without the target is credited by its payment_intent.succeeded event
    Given a new card
    When a PaymentIntent for a top-up of 50000 units for the card's client succeeds at the processor without the target
    Then the target acknowledged the PaymentIntent's "payment_intent.succeeded" event
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49500
    And the payment-response has no chargeId

  @CR-14.5 @CR-14.3 @CR-14.2
  Scenario: delivering the same event again credits nothing more
    Given a new card
    When a PaymentIntent for a top-up of 50000 units for the card's client succeeds at the processor without the target
    Then the target acknowledged the PaymentIntent's "payment_intent.succeeded" event
    When the processor delivers that event again 2 times
    And I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49500

  @CR-14.3 @CR-7.23 @CR-14.5
  Scenario: a top-up credited by the request path is not credited again by its event
    Given a new card
    And I paid for "GET /api/weather" with the card
    Then the target acknowledged the PaymentIntent's "payment_intent.succeeded" event
    When the processor delivers that event again 2 times
    And I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49000

  @CR-14.3 @CR-7.4 @CR-14.5
  Scenario: after the event credited a top-up, a first payment with the card is served from the balance without a charge
    Given a new card
    When a PaymentIntent for a top-up of 50000 units for the card's client succeeds at the processor without the target
    Then the target acknowledged the PaymentIntent's "payment_intent.succeeded" event
    When I pay for "GET /api/weather" with the card
    Then creditsRemaining is 49500
    And the payment-response has no chargeId
    And no PaymentIntent was created

  @CR-14.4 @CR-14.6
  Scenario: a full refund takes the whole top-up back, leaving the balance negative, which serves nothing
    Given a new card
    And I paid for "GET /api/weather" with the card
    When the processor refunds the PaymentIntent in full and the target acknowledges the event
    And I spend with the clientId on "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    When I spend with the clientId on "GET /api/nodesc"
    Then the response is the insufficient-credits challenge for "GET /api/nodesc"
    When I pay for "GET /api/weather" with the card
    Then creditsRemaining is 49000

  @CR-14.4 @CR-14.5
  Scenario Outline: a partial refund of <cents> minor units takes <taken> units
    Given a new card
    And I paid for "GET /api/weather" with the card and a top-up of <topUp> units
    When the processor refunds <cents> minor units of the PaymentIntent and the target acknowledges the event
    Then the target acknowledged the PaymentIntent's "payment_intent.succeeded" event
    When the processor delivers that event again 1 time
    And I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is <remaining>

    Examples:
      | topUp  | cents | taken  | remaining |
      | 300000 | 2000  | 200000 | 99000     |
      | 50000  | 1     | 100    | 48900     |

  @CR-14.4 @CR-14.6
  Scenario: a refund then a dispute of the rest take at most the credited top-up (CR-14.4's example)
    Given a new card
    And I paid for "GET /api/weather" with the card and a top-up of 50001 units
    When the processor refunds 101 minor units of the PaymentIntent and the target acknowledges the event
    And I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 38901
    When the processor opens a dispute on the PaymentIntent and the target acknowledges the event
    And I spend with the clientId on "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    When I pay for "GET /api/weather" with the card
    Then creditsRemaining is 48500

  @CR-14.4 @CR-14.6
  Scenario: a dispute takes the top-up back and a negative balance gets the insufficient-credits challenge
    Given a new card
    And I paid for "GET /api/weather" with the card
    When the processor opens a dispute on the PaymentIntent and the target acknowledges the event
    And I spend with the clientId on "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    When I spend with the clientId on "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    When I pay for "GET /api/weather" with the card and a top-up of 60000 units
    Then creditsRemaining is 59000

  @CR-14.5 @CR-14.4 @CR-14.3
  Scenario Outline: the events of one top-up in the order <order>, each delivered twice, leave the same balance
    Given a new card
    And a top-up of 100000 units for the card's client that the target never saw, refunded by 100 and disputed for 200 minor units
    When its events are delivered to the webhook in the order "<order>", twice
    Then every delivery was acknowledged with 2xx and no protocol header
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 69500

    Examples:
      | order                       |
      | succeeded, refund, dispute  |
      | succeeded, dispute, refund  |
      | refund, succeeded, dispute  |
      | refund, dispute, succeeded  |
      | dispute, succeeded, refund  |
      | dispute, refund, succeeded  |

  @CR-14.2
  Scenario Outline: a delivery with <signature> is answered 400 and changes nothing
    Given a new card
    And a top-up of 50000 units for the card's client that the target never saw, refunded by 0 and disputed for 0 minor units
    When its "succeeded" event is delivered to the webhook with <signature>
    Then the webhook answered 400
    When I spend with the clientId on "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"
    When its "succeeded" event is delivered to the webhook
    Then the webhook acknowledged it with 2xx and no protocol header
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49500

    Examples:
      | signature                            |
      | no signature                         |
      | a malformed signature                |
      | a signature made with another secret |
      | a signature 301 seconds old          |
      | a signature over other bytes         |

  @CR-14.3 @CR-14.2
  Scenario Outline: a payment_intent.succeeded event with <defect> is acknowledged and credits nothing
    Given a new card
    When a payment_intent.succeeded event of 50000 units for the card's client with "<defect>" is delivered to the webhook
    Then every delivery was acknowledged with 2xx and no protocol header
    When I spend with the clientId on "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"

    Examples:
      | defect                               |
      | status processing                    |
      | amount_received one minor unit short |
      | no credit402 metadata                |
      | top-up units that are not an integer |

  @CR-14.2
  Scenario Outline: a delivery signed with <form> is acknowledged and credits the top-up once
    Given a new card
    And a top-up of 50000 units for the card's client that the target never saw, refunded by 0 and disputed for 0 minor units
    When its "succeeded" event is delivered to the webhook, signed with "<form>"
    Then the webhook acknowledged it with 2xx and no protocol header
    When its "succeeded" event is delivered to the webhook, signed with "<form>"
    Then the webhook acknowledged it with 2xx and no protocol header
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49500

    Examples:
      | form                            |
      | a timestamp 299 seconds ahead   |
      | a wrong v1 before the valid one |
      | the valid v1 before a wrong one |
      | the valid v1 and a v0           |

  @CR-14.2
  Scenario Outline: a delivery signed with <form> is answered 400 and changes nothing
    Given a new card
    And a top-up of 50000 units for the card's client that the target never saw, refunded by 0 and disputed for 0 minor units
    When its "succeeded" event is delivered to the webhook, signed with "<form>"
    Then the webhook answered 400
    When I spend with the clientId on "GET /api/weather"
    Then the response is the insufficient-credits challenge for "GET /api/weather"

    Examples:
      | form                           |
      | only wrong v1 values           |
      | the valid signature as v0 only |
      | a timestamp 301 seconds ahead  |
      | a timestamp 1 day ahead        |

  @CR-14.4 @CR-14.2
  Scenario Outline: a refund and a dispute of a charge without a PaymentIntent, its payment_intent <how> in the event, are acknowledged and take nothing
    Given a new card
    And a top-up of 50000 units for the card's client that the target never saw, and a charge of 1000 minor units of the card without a PaymentIntent, refunded by 500 and disputed for 500 minor units
    When its "refund" event is delivered to the webhook with its payment_intent "<how>"
    And its "dispute" event is delivered to the webhook with its payment_intent "<how>"
    And its "succeeded" event is delivered to the webhook
    Then every delivery was acknowledged with 2xx and no protocol header
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49500

    Examples:
      | how     |
      | removed |
      | null    |
      | empty   |

  @CR-14.4 @CR-14.2
  Scenario: a refund event whose body names a PaymentIntent its charge does not have at the processor takes nothing
    Given a new card
    And a top-up of 50000 units for the card's client that the target never saw, and a charge of 1000 minor units of the card without a PaymentIntent, refunded by 500 and disputed for 0 minor units
    When its "succeeded" event is delivered to the webhook
    And its "refund" event, forged to name the top-up's PaymentIntent, is delivered to the webhook
    Then every delivery was acknowledged with 2xx and no protocol header
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49500

  @CR-14.3 @CR-14.2
  Scenario: a signed payment_intent.succeeded event about a PaymentIntent the processor does not have credits nothing
    Given a new card
    And I paid for "GET /api/weather" with the card
    When a forged payment_intent.succeeded event of 9999999900 units for the card's client, about a PaymentIntent the processor does not have, is delivered to the webhook
    Then the webhook acknowledged it with 2xx and no protocol header
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49000

  @CR-14.3 @CR-14.2
  Scenario: a signed payment_intent.succeeded event that raises a real top-up credits only what the processor's PaymentIntent says
    Given a new card
    And a top-up of 50000 units for the card's client that the target never saw, refunded by 0 and disputed for 0 minor units
    When its "succeeded" event, forged to 9999999900 units, is delivered to the webhook
    Then the webhook acknowledged it with 2xx and no protocol header
    When its "succeeded" event is delivered to the webhook
    Then the webhook acknowledged it with 2xx and no protocol header
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49500
