Feature: Headers and encoding (spec §3)
  The client sends the `payment` header as base64 of a JSON object. The target reads it strictly:
  standard or URL-safe alphabet, padding optional, nothing else. Its own `payment-required` and
  `payment-response` headers are standard, padded base64 of a JSON object, with lowercase names.
  `$card` in a payload stands for the id of the scenario's card, `$clientId` for its clientId.

  @CR-3.1 @CR-3.2 @CR-13.10
  Scenario: the challenge header has a lowercase name and a strict encoding
    When I request "GET /api/weather" without a payment header
    Then the response carries the header "payment-required" with exactly that lowercase name
    And the "payment-required" header is strict base64 JSON
    And every response header value is ASCII

  @CR-3.1 @CR-3.2 @CR-13.10
  Scenario: the payment-response header has a lowercase name and a strict encoding
    Given a new card
    When I pay for "GET /api/weather" with the card
    Then the request was served
    And the response carries the header "payment-response" with exactly that lowercase name
    And the "payment-response" header is strict base64 JSON
    And every response header value is ASCII

  @CR-3.1
  Scenario Outline: the payment header name is read case-insensitively (<name>)
    Given a new card
    When I pay for "GET /api/weather" with the card, sending the header name "<name>"
    Then the request was served
    And creditsRemaining is 49500

    Examples:
      | name    |
      | Payment |
      | PAYMENT |
      | pAyMeNt |

  @CR-3.3
  Scenario: no protocol object carries a null member
    Given a new card
    When I request "GET /api/nodesc" without a payment header
    Then no protocol object in the response has a null member
    When I pay for "GET /api/nodesc" with the card
    Then the request was served
    And no protocol object in the response has a null member
    When I spend with the clientId on "GET /api/nodesc"
    Then no protocol object in the response has a null member
    When I send the payment header "YWJj" to "GET /api/nodesc"
    Then no protocol object in the response has a null member

  @CR-3.4 @CR-13.10
  Scenario Outline: a payment header in the <encoding> encoding is accepted
    Given a new card
    When I pay for "GET /api/weather" with the card, encoding the header <encoding>
    Then the request was served
    And creditsRemaining is 49500

    Examples:
      | encoding          |
      | standard          |
      | unpadded          |
      | url-safe          |
      | url-safe unpadded |
      | mixed alphabets   |

  @CR-3.4 @CR-13.10 @CR-13.19
  Scenario Outline: the payment header "<value>" decodes to {} and gets the plain challenge
    When I send the payment header "<value>" to "GET /api/weather"
    Then the response is the challenge for "GET /api/weather"
    And the handler did not run

    Examples:
      | value |
      | e30=  |
      | e30   |
      | e31=  |

  @CR-3.5 @CR-8.4 @CR-8.3
  Scenario Outline: the payment header "<value>" is malformed (<why>)
    When I send the payment header "<value>" to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" with message "Malformed payment header"
    And the handler did not run

    Examples:
      | value | why                        |
      | e     | a body length of 4n+1      |
      | /w==  | the byte 0xFF is not UTF-8 |
      | YWJj  | "abc" is not JSON          |

  @CR-3.5 @CR-8.4 @CR-3.4 @CR-13.10
  Scenario Outline: the payment header "<value>", which lenient base64 decoders read as {}, is not base64 in any variant (<why>)
    When I send the payment header "<value>" to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" with message "Malformed payment header"
    And the handler did not run

    Examples:
      | value     | why                                |
      | e30=,e30= | a comma, as from a repeated header |
      | e3 0=     | a space inside                     |
      | e30*      | a character outside the alphabets  |
      | e30gA     | a body length of 4n+1              |

  @CR-3.4 @CR-13.10
  Scenario Outline: the payment header "<value>", which lenient base64 decoders read as {}, breaks the padding rule (<why>)
    When I send the payment header "<value>" to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" with message "Malformed payment header"
    And the handler did not run

    Examples:
      | value  | why                      |
      | e30==  | wrong padding            |
      | e30=== | three padding characters |

  @CR-3.5 @CR-8.4 @CR-13.10
  Scenario: an empty payment header is malformed, where the source sees no payment
    When I send the payment header "" to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" with message "Malformed payment header", where CR-13.10 overrides the source's plain challenge
    And the handler did not run

  @CR-3.5 @CR-3.10 @CR-8.4 @CR-13.10
  Scenario: a real payment emptied charges nothing, where the source sees no payment
    Given a new card
    When I send the card's payment header with "an empty value" to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" with message "Malformed payment header", where CR-13.10 overrides the source's plain challenge
    And the handler did not run
    And no request reached the processor

  @CR-3.5 @CR-3.10 @CR-8.4
  Scenario Outline: a real payment made malformed by <malformation> charges nothing
    Given a new card
    When I send the card's payment header with "<malformation>" to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" with message "Malformed payment header"
    And the handler did not run
    And no request reached the processor

    Examples:
      | malformation                |
      | a second JSON text after it |
      | a truncated JSON text       |

  @CR-3.5 @CR-3.10 @CR-8.4 @CR-3.4 @CR-13.10
  Scenario Outline: a real payment made malformed by <malformation>, which lenient base64 decoders still read, is not base64 in any variant and charges nothing
    Given a new card
    When I send the card's payment header with "<malformation>" to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" with message "Malformed payment header"
    And the handler did not run
    And no request reached the processor

    Examples:
      | malformation                      |
      | a space inside                    |
      | a tab inside                      |
      | a comma-joined copy               |
      | a character outside the alphabets |
      | a body length of 4n+1             |

  @CR-3.4 @CR-13.10 @CR-13.36
  Scenario Outline: a real payment made malformed by <malformation>, which lenient decoders still read, charges nothing
    Given a new card
    When I send the card's payment header with "<malformation>" to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" with message "Malformed payment header"
    And the handler did not run
    And no request reached the processor

    Examples:
      | malformation             |
      | a second header line     |
      | one = too many           |
      | three =                  |
      | an = inside the body     |
      | bytes that are not UTF-8 |

  @CR-8.11 @CR-3.6 @CR-13.19
  Scenario Outline: a payload that is not a JSON object (<payload>) is invalid
    Given a new card
    When I send the payment payload '<payload>' to "GET /api/weather"
    Then the answer is a 402 error answer that charged nothing, as every error answer on a gated route
    And the answer is the payment error "invalid_payment"
    And the handler did not run
    And no request reached the processor

    Examples:
      | payload                        |
      | null                           |
      | []                             |
      | 42                             |
      | "$card"                        |
      | true                           |
      | false                          |
      | [{"paymentMethodId":"$card"}]  |

  @CR-3.8 @CR-7.1 @CR-8.5
  Scenario Outline: topUpAmount <value> is invalid, where the source's rule says it is below the minimum
    Given a new card
    When I send the payment payload '{"paymentMethodId":"$card","topUpAmount":<value>}' to "GET /api/weather"
    Then the answer is the payment error "invalid_payment" naming "topUpAmount", where CR-3.8 overrides the source's "top_up_below_minimum"
    And the handler did not run
    And no request reached the processor

    Examples:
      | value  |
      | 0      |
      | -1     |
      | -50000 |

  @CR-3.7 @CR-3.8 @CR-13.19
  Scenario Outline: <member> set to <value> is invalid and the message names the member
    Given a new card
    When I send the payment payload '<payload>' to "GET /api/weather"
    Then the answer is the payment error "invalid_payment"
    And the error message contains "<member>"
    And the handler did not run
    And no request reached the processor

    Examples:
      | member          | value          | payload                                                      |
      | topUpAmount     | "50000"        | {"paymentMethodId":"$card","topUpAmount":"50000"}            |
      | topUpAmount     | 2^53           | {"paymentMethodId":"$card","topUpAmount":9007199254740992}   |
      | topUpAmount     | 1e20           | {"paymentMethodId":"$card","topUpAmount":1e20}               |
      | topUpAmount     | null           | {"paymentMethodId":"$card","topUpAmount":null}               |
      | topUpAmount     | true           | {"paymentMethodId":"$card","topUpAmount":true}               |
      | topUpAmount     | [50000]        | {"paymentMethodId":"$card","topUpAmount":[50000]}            |
      | paymentMethodId | ""             | {"paymentMethodId":"","topUpAmount":50000,"note":"$card"}    |
      | paymentMethodId | 42             | {"paymentMethodId":42,"note":"$card"}                        |
      | paymentMethodId | null           | {"paymentMethodId":null,"note":"$card"}                      |
      | paymentMethodId | an array       | {"paymentMethodId":["$card"]}                                |
      | paymentMethodId | an object      | {"paymentMethodId":{"id":"$card"}}                           |
      | clientId        | ""             | {"clientId":"","paymentMethodId":"$card"}                    |
      | clientId        | 42             | {"clientId":42,"paymentMethodId":"$card"}                    |
      | clientId        | null           | {"clientId":null,"paymentMethodId":"$card"}                  |
      | clientId        | an array       | {"clientId":["$clientId"],"paymentMethodId":"$card"}         |
      | clientId        | false          | {"clientId":false,"paymentMethodId":"$card"}                 |

  @CR-1.2 @CR-7.9 @CR-3.7 @CR-3.8 @CR-13.19
  Scenario: topUpAmount 50000.5 is invalid, and a target that charges it credits what it charged
    Given a new card
    When I send the payment payload '{"paymentMethodId":"$card","topUpAmount":50000.5}' to "GET /api/weather"
    Then no balance or credit in the answer is a fraction of a unit
    And the answer is the payment error "invalid_payment"
    And the error message contains "topUpAmount"
    And the handler did not run
    And no request reached the processor

  @CR-3.7
  Scenario Outline: topUpAmount written as <text> is the integer 50000
    Given a new card
    When I send the payment payload '{"paymentMethodId":"$card","topUpAmount":<text>}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 49500
    And the PaymentIntent has amount 500 and currency "usd"

    Examples:
      | text    |
      | 5e4     |
      | 50000.0 |
      | 5.0E4   |
      | 500e2   |

  @CR-3.9
  Scenario: unknown payload members are ignored
    Given a new card
    When I send the payment payload '{"paymentMethodId":"$card","topUpAmount":50000,"note":"why?","extra":{"a":[1,2]}}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 49500
    When I send the payment payload '{"clientId":"$clientId","future":true}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 49000

  @CR-3.8 @CR-13.19
  Scenario: an invalid payload with a funded client's clientId changes nothing
    Given a client with a balance of 10000 units
    When I send the payment payload '{"clientId":"$clientId","topUpAmount":"1"}' to "GET /api/weather"
    Then the answer is the payment error "invalid_payment"
    And the handler did not run
    And no request reached the processor
    When I spend with the clientId on "GET /api/weather"
    Then creditsRemaining is 9500

  @CR-3.13 @CR-13.39
  Scenario: every answer to a gated request is private: not stored, and varying on the payment header
    Given a new card
    When I request "GET /api/weather" without a payment header
    And I send the payment header "YWJj" to "GET /api/weather"
    And I pay for "GET /api/weather" with the card
    And I spend with the clientId on "GET /api/weather"
    Then every answer to a gated request in this scenario carries Cache-Control no-store and Vary payment
