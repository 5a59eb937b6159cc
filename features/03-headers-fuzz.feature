@fuzz
Feature: Generated payment headers (spec §3, robustness of decoding)
  A property test: whatever the client sends in the `payment` header — random bytes as base64, random
  JSON values, mistyped members, huge strings, random Unicode, or the scenario's real payment broken
  so that base64 decoding must fail — the target answers 402 with a challenge or an `invalid_payment`
  error, never runs the handler, never fails with 5xx and never calls the processor.
  The seed is fixed (worldParameters.fuzzSeed, default 402) and printed, so any failure reproduces.
  At the wire level it fails on what the stripe402 source states: a 2xx without a successful payment-response (the
  handler ran unpaid, CR-4.6), an error answer other than 402 (CR-8.11), and a value that no base64 variant reads
  (a character outside both alphabets, a body of 4n+1) charged and served (CR-3.5); what a target answers to a value
  the source does not reject is credit402's decision (CR-13.19).

  @CR-4.6 @CR-8.11 @CR-3.5 @CR-3.4 @CR-3.6 @CR-3.8 @CR-13.10 @CR-13.19
  Scenario: 1000 generated payment headers are all answered 402 and charge nothing
    Given a new card
    When I send 1000 generated payment headers to "GET /api/weather"
    Then every generated header got a 402 challenge or an "invalid_payment" payment error, and none reached the processor
