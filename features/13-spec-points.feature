Feature: Decisions on points the source leaves open (spec §13)
  Numbers in the payload are read as binary64 values (CR-13.33); a processor that gives no answer is reported as
  "Payment processing failed" (CR-13.35); several `payment` header lines are one malformed value (CR-13.36); the
  challenge's resource url is the request path after decoding only unreserved characters (CR-13.2, CR-13.25).

  @CR-3.7 @CR-13.33
  Scenario Outline: a topUpAmount written <written> is read as the binary64 value <units>, which is charged and credited
    Given a new card
    When I send the payment payload '{"paymentMethodId":"$card","topUpAmount":<written>}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is <remaining>
    And the PaymentIntent has amount <minor> and currency "usd"
    And the PaymentIntent's metadata holds the clientId and the top-up "<units>"

    Examples:
      | written              | units | remaining | minor |
      | 50000.00000000000001 | 50000 | 49500     | 500   |
      | 5.0000000000000001e4 | 50000 | 49500     | 500   |
      | 50000.99999999999999 | 50001 | 49501     | 501   |

  @CR-3.7 @CR-13.33 @CR-13.31
  Scenario Outline: a funded client's payload with topUpAmount <written>, a positive safe integer in binary64, is served from the balance
    Given a client with a balance of 10000 units
    When I send the payment payload '{"clientId":"$clientId","topUpAmount":<written>}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 9500
    And no request reached the processor

    Examples:
      | written             |
      | 9007199254740990.9  |
      | 9007199254740991.4  |
      | 0.99999999999999999 |

  @CR-3.7 @CR-3.8 @CR-13.33
  Scenario Outline: topUpAmount <written> is not a positive safe integer in binary64 (<why>): invalid_payment, even beside a funded clientId
    Given a client with a balance of 10000 units
    When I send the payment payload '{"clientId":"$clientId","topUpAmount":<written>}' to "GET /api/weather"
    Then the answer is the payment error "invalid_payment"
    And the error message contains "topUpAmount"
    And the handler did not run
    And no request reached the processor
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9500

    Examples:
      | written            | why                 |
      | 9007199254740991.5 | it is 2^53          |
      | 1e400              | it is not finite    |
      | 1e-400             | it is 0             |
      | 0.9999999999999999 | it stays below 1    |
      | 50000.000000000007 | it has a fraction   |

  @CR-3.5 @CR-3.10
  Scenario Outline: topUpAmount <literal> is not JSON: malformed, even beside a funded clientId
    Given a client with a balance of 10000 units
    When I send the payment payload '{"clientId":"$clientId","topUpAmount":<literal>}' to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" with message "Malformed payment header"
    And the handler did not run
    And no request reached the processor
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9500

    Examples:
      | literal   |
      | NaN       |
      | Infinity  |
      | -Infinity |

  @CR-12.2 @CR-13.33 @CR-13.16
  Scenario: stripe402Version 1.0000000000000001 is the number 1 in binary64
    Given a new card
    When I send the payment payload '{"stripe402Version":1.0000000000000001,"paymentMethodId":"$card"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 49500

  @faults @CR-13.35
  Scenario Outline: a processor that <fault> the PaymentIntent creation gave no answer: "Payment processing failed", nothing credited
    Given a new card
    And the processor <fault> every PaymentIntent creation for the card until the target answers
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "payment_failed" with message "Payment processing failed", as the processor gave no answer
    And the handler did not run
    And no PaymentIntent succeeded in this scenario

    Examples:
      | fault                    |
      | resets the connection of |
      | times out                |

  @faults @CR-13.35
  Scenario Outline: a processor that <fault> the card's retrieval gave no answer: "Payment processing failed", no charge
    Given a new card
    And the processor <fault> every retrieval of the card until the target answers
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "payment_failed" with message "Payment processing failed", as the processor gave no answer
    And the handler did not run
    And no PaymentIntent was created

    Examples:
      | fault                    |
      | resets the connection of |
      | times out                |

  @faults @CR-13.35
  Scenario: a processor that resets the connection of the customer search gave no answer: "Payment processing failed", no charge
    Given a new card
    And the processor resets the connection of every customer search for the card's client until the target answers
    When I pay for "GET /api/weather" with the card
    Then the answer is the payment error "payment_failed" with message "Payment processing failed", as the processor gave no answer
    And no PaymentIntent was created

  @CR-3.4 @CR-13.36
  Scenario Outline: two payment header lines, <first> then <second>, are one malformed value and charge nothing
    Given a client with a balance of 10000 units
    When I send the payment header lines '<first>' and '<second>' to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" with message "Malformed payment header"
    And the handler did not run
    And no request reached the processor
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9500

    Examples:
      | first                       | second                      |
      | {"paymentMethodId":"$card"} | {}                          |
      | {}                          | {"paymentMethodId":"$card"} |
      | {"clientId":"$clientId"}    | {"clientId":"$clientId"}    |

  @CR-13.2 @CR-13.25
  Scenario Outline: the challenge to "GET <target>" names the resource url "/api/weather", the matched route's path
    When I request "GET <target>" without a payment header
    Then the response is the challenge for "GET /api/weather"
    And the challenge's resource url is "/api/weather"

    Examples:
      | target                 |
      | /api/%77eather         |
      | /%61pi/we%61ther?x=%2F |
