Feature: A handler that fails keeps the deduction (spec CR-4.7, CR-13.27)
  The price is deducted before the handler runs, and the deduction stands once the handler is reached: a handler that
  answers 5xx or throws does not get the price back (the reference's optional refund on handler errors is outside
  conformance, and off in conformance runs). The profile's failing handlers (`failingHandlers`, harness/PROFILE.md):
  `GET /api/fails` (price 400) answers 500 with a body naming its route, `GET /api/throws` (price 350) throws, so that
  the target's framework answers. The handler's answer carries the payment-response of its deduction, as any answer of
  a served request does; the framework's answer to a handler that threw may lack it, but one it carries states the
  deduction. The balance read afterwards shows the price taken exactly once.

  @CR-4.7 @CR-13.27
  Scenario: a paid request whose handler answers 500 is answered by the handler, with its payment-response, and keeps its deduction
    Given a client with a balance of 10000 units
    When I spend with the clientId on "GET /api/fails"
    Then the answer is the 500 of the handler of "GET /api/fails"
    And that 5xx answer carries the payment-response of the deduction: the clientId and 9600 credits remaining
    And the handler ran exactly once for that request
    And the price of "GET /api/fails" was taken exactly once: a spend on "GET /api/weather" leaves 9100

  @CR-4.7 @CR-13.27
  Scenario: a paid request whose handler throws is answered 5xx by the target's framework and keeps its deduction
    Given a client with a balance of 10000 units
    When I spend with the clientId on "GET /api/throws"
    Then the answer is a 5xx of the target's framework, after the handler of "GET /api/throws" threw
    And a payment-response on that 5xx answer, if any, states the deduction: the clientId and 9650 credits remaining
    And the handler ran exactly once for that request
    And the price of "GET /api/throws" was taken exactly once: a spend on "GET /api/weather" leaves 9150

  @CR-4.7 @CR-13.27
  Scenario: a first payment whose handler answers 500 keeps the charge and the deduction, and its 500 carries the payment-response
    Given a new card
    When I pay for "GET /api/fails" with the card
    Then the answer is the 500 of the handler of "GET /api/fails"
    And that 5xx answer carries the payment-response of the payment: the clientId, 49600 credits remaining and the chargeId of the PaymentIntent the processor created
    And the handler ran exactly once for that request
    And the price of "GET /api/fails" was taken exactly once: a spend on "GET /api/weather" leaves 49100
