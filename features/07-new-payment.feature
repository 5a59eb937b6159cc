Feature: New-payment path (spec §7)
  A payload with a paymentMethodId pays by card: the top-up (default: the route's minimum) is checked,
  the card's fingerprint is fetched, the clientId is derived from it, an existing balance is spent first,
  otherwise the customer is found or created, a PaymentIntent is created and confirmed, the top-up is
  credited and the price deducted. Each step is checked here from outside, through the answer and the
  processor journal.

  @CR-7.1 @CR-7.6 @CR-7.8 @CR-7.9 @CR-7.11 @CR-7.13 @CR-1.1 @CR-4.6 @CR-9.1 @CR-13.28 @CR-13.11
  Scenario: a first payment charges the minimum top-up and serves the request
    Given a new card
    When I pay for "GET /api/weather" with the card
    Then the handler ran
    And the payment-response has exactly the members "success, creditsRemaining, clientId, chargeId"
    And creditsRemaining is 49500
    And the clientId is the HMAC of the card's fingerprint
    And the chargeId is the PaymentIntent the processor created
    And the processor created exactly 1 PaymentIntent
    And the PaymentIntent has amount 500 and currency "usd"
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 49000

  @CR-7.1
  Scenario: an explicit top-up is charged and credited
    Given a new card
    When I pay for "GET /api/weather" with the card and a top-up of 60000 units
    Then the request was served
    And creditsRemaining is 59500
    And the PaymentIntent has amount 600 and currency "usd"

  @CR-1.3 @CR-1.2 @CR-7.9 @CR-7.14 @CR-9.3
  Scenario Outline: a top-up of <units> units charges <minor> minor units and credits <units> units
    Given a new card
    When I pay for "GET /api/weather" with the card and a top-up of <units> units
    Then the request was served
    And creditsRemaining is <remaining>
    And the PaymentIntent has amount <minor> and currency "usd"

    Examples:
      | units     | minor   | remaining |
      | 50000     | 500     | 49500     |
      | 50001     | 501     | 49501     |
      | 50099     | 501     | 49599     |
      | 50100     | 501     | 49600     |
      | 50101     | 502     | 49601     |
      | 123456789 | 1234568 | 123456289 |

  @CR-7.1 @CR-8.5 @CR-7.26 @CR-8.1 @CR-8.3
  Scenario Outline: a top-up of <topUp> on <route> is below its minimum and nothing is asked of the processor
    Given a new card
    When I pay for "<route>" with the card and a top-up of <topUp> units
    Then the answer is the payment error "top_up_below_minimum"
    And the error message names the amounts <topUp> and <minimum>
    And the handler did not run
    And no request reached the processor

    Examples:
      | route               | topUp | minimum |
      | GET /api/weather    | 49999 | 50000   |
      | GET /api/weather    | 1     | 50000   |
      | POST /api/translate | 99999 | 100000  |
      | POST /api/translate | 50000 | 100000  |

  @CR-7.1 @CR-9.5
  Scenario: a top-up of exactly the route's minimum is accepted
    Given a new card
    When I pay for "POST /api/translate" with the card and a top-up of 100000 units
    Then the request was served
    And creditsRemaining is 97500
    And the PaymentIntent has amount 1000 and currency "eur"

  @CR-7.2
  Scenario: the card's payment method is retrieved once for its fingerprint
    Given a new card
    When I pay for "GET /api/weather" with the card
    Then the request was served
    And the processor retrieved the card exactly once

  @CR-7.3 @CR-10.3
  Scenario: the clientId is the HMAC-SHA256 of the card fingerprint keyed with the server secret
    Given a new card
    When I pay for "GET /api/weather" with the card
    Then the request was served
    And the clientId is the HMAC of the card's fingerprint

  @CR-7.4 @CR-10.3
  Scenario: the same card sent again is served from its balance without a new charge
    Given a new card
    And I paid for "GET /api/weather" with the card
    When I pay for "GET /api/weather" with the card
    Then the request was served
    And creditsRemaining is 49000
    And the payment-response has no chargeId
    And the processor retrieved the card exactly once
    And the processor made no customer request
    And no PaymentIntent was created

  @CR-7.5 @CR-7.19 @CR-13.8 @CR-2.1
  Scenario: the customer is searched by the client's metadata and created with the card
    Given a new card
    When I pay for "GET /api/weather" with the card
    Then the request was served
    And the processor searched customers for the card's client by metadata
    And the processor created a customer with the card and the client's metadata
    And the PaymentIntent charges the card for the customer

  @CR-7.6 @CR-7.15 @CR-7.17 @CR-7.18 @CR-13.21
  Scenario: the PaymentIntent carries exactly the parameters of the spec
    Given a new card
    When I pay for "GET /api/weather" with the card and a top-up of 50001 units
    Then the request was served
    And the processor created exactly 1 PaymentIntent
    And the PaymentIntent has amount 501 and currency "usd"
    And the PaymentIntent charges the card for the customer
    And the PaymentIntent's description is "$serviceName top-up for Weather lookup"
    And the PaymentIntent is confirmed at once with redirects disallowed and automatic capture
    And the PaymentIntent's metadata holds the clientId and the top-up "50001"
    And the PaymentIntent was sent with an idempotency key of at most 255 characters

  @CR-7.18 @CR-13.18 @CR-2.1
  Scenario Outline: the PaymentIntent description names the route (<request>)
    Given a new card
    When I pay for "<request>" with the card
    Then the request was served
    And the PaymentIntent's description is "<description>"

    Examples:
      | request             | description                         |
      | GET /api/weather    | $serviceName top-up for Weather lookup |
      | POST /api/translate | $serviceName top-up for Translation    |
      | GET /api/nodesc     | $serviceName top-up for /api/nodesc    |
      | GET /api/nodesc?x=1 | $serviceName top-up for /api/nodesc    |

  @CR-7.13 @CR-7.11
  Scenario: the success header of a charge carries the PaymentIntent id, the clientId and the balance
    Given a new card
    When I pay for "POST /api/translate" with the card and a top-up of 250000 units
    Then the request was served
    And creditsRemaining is 247500
    And the chargeId is the PaymentIntent the processor created
    And the clientId is the HMAC of the card's fingerprint

  @CR-7.19 @CR-7.16 @CR-7.5 @CR-6.4
  Scenario: a second top-up reuses the customer and sends a new idempotency key
    Given a client with a balance of 200 units
    When I pay for "GET /api/weather" with the card
    Then the request was served
    And creditsRemaining is 49700
    And the processor searched customers for the card's client by metadata
    And the processor created no customer
    And the PaymentIntent is for the customer of the first top-up
    And its idempotency key differs from the first attempt's

  @CR-7.16 @CR-7.7 @shared-card
  Scenario: a payment retried before it was credited sends the same idempotency key
    Given a new card with the number "4000002500003155"
    And I tried to pay for "GET /api/weather" with the card and got the payment error "payment_failed"
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "payment_failed" with message "Payment processing failed"
    And the processor created exactly 1 PaymentIntent
    And its idempotency key is the first attempt's

  @CR-7.16 @shared-card
  Scenario: top-ups of different units within the same cent send different idempotency keys
    Given a new card with the number "4000002500003155"
    And I tried to pay for "GET /api/weather" with the card and a top-up of 50001 units and got the payment error "payment_failed"
    When I pay for "GET /api/weather" with the card and a top-up of 50050 units
    Then the answer is the payment error "payment_failed"
    And its idempotency key differs from the first attempt's
