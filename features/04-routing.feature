Feature: Routing (spec §4)
  A request is gated when `<METHOD> <path>` — its method and its path without the query, byte for
  byte — is a key of the configured routes; HEAD follows a gated GET. Every other request is free and
  goes to the application untouched: the `payment` header is not even read.
  Profile: gated `GET /api/weather`, `POST /api/translate`, `GET /api/nodesc`; free `GET /free` and `POST /api/weather`.

  @CR-4.4 @CR-1.5 @CR-13.29
  Scenario: a free route is passed to the application untouched
    When I request "GET /free" without a payment header
    Then the handler of "GET /free" ran
    And the request was not gated

  @CR-4.4 @CR-13.29
  Scenario Outline: a free route ignores any payment header, even a malformed one (<value>)
    When I send the payment header "<value>" to "GET /free"
    Then the handler of "GET /free" ran
    And the request was not gated

    Examples:
      | value     |
      |           |
      | %%%       |
      | e30==     |
      | e30=,e30= |
      | bnVsbA==  |
      | e30=      |

  @CR-4.4 @CR-13.29
  Scenario: a free route never charges a payment
    Given a new card
    When I pay for "GET /free" with the card
    Then the handler of "GET /free" ran
    And the request was not gated
    And no request reached the processor

  @CR-4.2 @CR-4.3 @CR-4.4 @CR-13.25
  Scenario: the same path with another method is free
    Given a new card
    When I pay for "POST /api/weather" with the card
    Then the handler of "POST /api/weather" ran
    And the request was not gated
    And no request reached the processor

  @CR-4.2 @CR-4.3 @CR-4.9 @CR-13.25
  Scenario Outline: "GET <target>" is not "GET /api/weather" and never reaches its handler (<why>)
    When I request "GET <target>" without a payment header
    Then the request was not gated
    And the handler of "GET /api/weather" did not run

    Examples:
      | target          | why                                  |
      | /api/weather/   | trailing slash                       |
      | /API/weather    | case of the path                     |
      | /api/%57eather  | decoding keeps case (W is not w)     |
      | /api%2Fweather  | an encoded slash is not decoded      |
      | //api/weather   | no merging of slashes                |
      | /api/weathe     | a prefix is not the path             |

  @CR-13.25
  Scenario Outline: percent-encoded unreserved characters are decoded before matching (<target>)
    When I request "GET <target>" without a payment header
    Then the response is the challenge for "GET /api/weather"
    And the handler did not run

    Examples:
      | target          |
      | /api/%77eather  |
      | /api/we%61ther  |
      | /%61pi/weather  |

  @CR-1.4 @CR-4.1 @CR-4.2 @CR-4.3 @CR-5.2
  Scenario: the query string is not part of the route key
    When I request "GET /api/weather?city=Oslo" without a payment header
    Then the response is the challenge for "GET /api/weather"
    And the challenge's resource url is "/api/weather"

  @CR-4.2 @CR-4.3
  Scenario: a paid request with a query string is served and charged like the route
    Given a new card
    When I pay for "GET /api/weather?city=Oslo&units=metric" with the card
    Then the request was served
    And creditsRemaining is 49500

  @CR-4.2
  Scenario: an absolute-form request target is matched on its path
    When I request "GET /api/weather?city=Oslo" in absolute form without a payment header
    Then the response is the challenge for "GET /api/weather"
    And the challenge's resource url is "/api/weather"

  @CR-4.5 @CR-4.6 @CR-1.5 @CR-1.6
  Scenario Outline: the gated route <route> is never served unpaid
    When I request "<route>" without a payment header
    Then the response status is 402
    And the handler did not run

    Examples:
      | route               |
      | GET /api/weather    |
      | POST /api/translate |
      | GET /api/nodesc     |

  @CR-4.8
  Scenario: HEAD on a gated GET path gets the GET route's challenge
    When I request "HEAD /api/weather" without a payment header
    Then the response is the challenge for "GET /api/weather"
    And the handler did not run

  @CR-4.8
  Scenario: HEAD on a gated GET path is charged the GET route's price
    Given a client with a balance of 10000 units
    When I spend with the clientId on "HEAD /api/weather"
    Then the request was served
    And creditsRemaining is 9500

  @CR-13.19
  Scenario Outline: a payload without clientId and paymentMethodId gets the plain challenge (<payload>)
    When I send the payment payload '<payload>' to "GET /api/weather"
    Then the response is the challenge for "GET /api/weather"
    And the handler did not run

    Examples:
      | payload                                |
      | {}                                     |
      | {"topUpAmount":50000}                  |
      | {"stripe402Version":1}                 |
      | {"note":"hello","topUpAmount":1}       |

  @CR-4.5 @CR-6.2
  Scenario: clientId is tried before paymentMethodId
    Given a client with a balance of 10000 units
    And another new card
    When I send the payment payload '{"paymentMethodId":"$otherCard","clientId":"$clientId"}' to "GET /api/weather"
    Then the request was served
    And creditsRemaining is 9500
    And the clientId is the HMAC of the card's fingerprint
    And no request reached the processor

  # The routing corpus: every row sends each of its targets raw (as the request target, nothing normalised by the kit),
  # first without a payment and then spending from a funded client's balance, and reads the balance after each one.
  # Whatever a target reads a variant as, no gated handler may answer it unpaid, and a price may only be deducted
  # together with the answer of the gated handler it pays for. In these tables `\\` is one backslash.
  @CR-4.9 @CR-4.10 @CR-13.25
  Scenario Outline: routing corpus, <variants>: the gate and the router agree
    Given a client with a balance of 1000000 units in every currency
    When I send <method> <header> to each target unpaid, then spending the clientId: <targets>
    Then no gated handler answered unpaid, and every deducted price came with its handler's answer
    And every variant was <verdict>

    Examples:
      | variants                       | method  | header                               | verdict                                 | targets |
      | backslashes                    | GET     |                                      | refused as ambiguous                    | /api\\weather /api\\weather#x /api\\weather?city=Oslo# /api/weather\\ /api\\/weather /%61pi\\weather#x /api\\%77eather /api\\nodesc# /api\\weather?x=\\# |
      | backslashes in absolute forms  | GET     |                                      | refused as ambiguous                    | http://x/api\\weather https://x/api\\weather?city=Oslo http://x/api\\weather#x HTTP://x/api\\weather |
      | backslashes                    | POST    |                                      | refused as ambiguous                    | /api\\translate# /api\\translate /api\\translate?to=fr# http://x/api\\translate |
      | backslashes                    | HEAD    |                                      | refused as ambiguous                    | /api\\weather# /api\\weather |
      | fragments                      | GET     |                                      | refused as ambiguous                    | /api/weather# /api/weather#x /api/weather#/ /api#/weather /api/weather?city=Oslo#x /api/weather?# /api/%77eather#x http://x/api/weather#x /api/nodesc# |
      | fragments                      | POST    |                                      | refused as ambiguous                    | /api/translate# /api/translate#x |
      | absolute forms, other schemes  | GET     |                                      | refused as ambiguous                    | ftp://x/api/weather ws://x/api/weather wss://x/api/weather file://x/api/weather httpx://x/api/weather gopher://x/api/weather h://x/api/weather ftp://x/api/nodesc |
      | absolute forms, other schemes  | POST    |                                      | refused as ambiguous                    | ftp://x/api/translate ws://x/api/translate |
      | absolute forms without a host  | GET     |                                      | refused as ambiguous                    | http:///api/weather https:///api/weather?city=Oslo |
      | dot segments                   | GET     |                                      | refused as ambiguous                    | /api/./weather /api/x/../weather /./api/weather /api/weather/. /api/weather/x/.. /api/%2e/weather /api/%2E%2E/api/weather /api/.%2e/api/weather /api/x/%2e%2e/weather http://x/api/../api/weather /api/weather/.. |
      | dot segments                   | POST    |                                      | refused as ambiguous                    | /api/./translate /api/x/../translate |
      | absolute forms, http(s)        | GET     |                                      | gated as the route it names             | http://x/api/weather https://x/api/weather HTTP://x/api/weather HtTpS://x/api/weather?city=Oslo http://x:80/api/weather http://user@x/api/weather http://127.0.0.1/api/weather http://[::1]/api/weather http://x/api/%77eather http://x/api/nodesc |
      | absolute forms, http(s)        | POST    |                                      | gated as the route it names             | http://x/api/translate https://x/api/translate?to=fr |
      | absolute forms, http(s)        | HEAD    |                                      | gated as the route it names             | http://x/api/weather HTTPS://x/api/weather |
      | absolute forms, other paths    | GET     |                                      | free                                    | http://x/api/weather/ http://x//api/weather http://x/API/weather http://x http://x?/api/weather http://x/api%2Fweather http://x/api/%57eather |
      | unreserved percent-encodings   | GET     |                                      | gated as the route it names             | /api/%77eather /api/we%61ther /%61pi/weather /%61%70%69/%77%65%61%74%68%65%72 /api/weath%65r?city=Oslo /api/%6Eodesc /api/nodes%63?x=%2F |
      | unreserved percent-encodings   | POST    |                                      | gated as the route it names             | /api/tr%61nslate /%61pi/translate?to=%2F |
      | unreserved percent-encodings   | HEAD    |                                      | gated as the route it names             | /api/%77eather /%61pi/weather |
      | other percent-encodings        | GET     |                                      | free                                    | /api/%57eather /api%2Fweather /api%2fweather /api/weather%2F /api/weather%3F /api/weather%23 /api/weather%20 /api/weather%00 /api/%2577eather /api/%5Cweather /api%5Cweather /api/weather%2e /api/weather%7E |
      | malformed percent-encodings    | GET     |                                      | refused as ambiguous                    | /api/weather% /api/weather%zz /api/%u0077eather /api/weather%FF /api/%E3eather /api/users/%FF /api/files/a%C3 |
      | slashes                        | GET     |                                      | free                                    | //api/weather /api//weather ///api/weather /api/weather/ /api/weather// //api//weather/ /api/weather/%2F |
      | case                           | GET     |                                      | free                                    | /API/weather /api/Weather /API/WEATHER /api/weatheR /Api/Weather /api/NODESC |
      | case                           | POST    |                                      | free                                    | /API/translate /api/Translate |
      | other methods                  | PUT     |                                      | free                                    | /api/weather /api/translate /api/nodesc |
      | other methods                  | DELETE  |                                      | free                                    | /api/weather /api/translate |
      | other methods                  | PATCH   |                                      | free                                    | /api/weather /api/translate |
      | other methods                  | OPTIONS |                                      | free                                    | /api/weather /api/translate * |
      | other methods                  | GET     |                                      | free                                    | /api/translate /api/weather;x=1 /api/weather; /api;/weather /api/weather.json /api/weathe /api/weather. /api/weather~ |
      | other methods                  | POST    |                                      | free                                    | /api/weather /api/nodesc /api/weather?_method=GET |
      | route patterns                 | GET     |                                      | gated as the route it names             | /api/users/42 /api/users/%34%32 /api/users/a%2Fb /api/users/me /api/users/%6De /api/users/m%65?x=1 /api/files/ /api/files/a /api/files/%61 /api/files/a/b /api/files/a//b /api/files/a%2Fb /api/files/a/ http://x/api/users/42 |
      | route patterns                 | HEAD    |                                      | gated as the route it names             | /api/users/42 /api/users/me /api/files/a/b |
      | route patterns, other paths    | GET     |                                      | free                                    | /api/users/ /api/users//42 /api/users/42/ /api/users/42/x /API/users/42 /api/Users/42 /api/users /api/files /API/files/a //api/users/42 /api/users%2F42 /api/files%2Fa |
      | route patterns, other methods  | POST    |                                      | free                                    | /api/users/42 /api/files/a /api/files/a/b |
      | route patterns                 | GET     |                                      | refused as ambiguous                    | /api/users/../me /api/users/./42 /api/files/a/../b /api/files/%2e%2e/x /api/users\\42 /api/files/a\\b /api/users/42#x /api/files/#/x |
      | method overrides               | POST    | with "X-HTTP-Method-Override: GET"   | gated or free, as the method is read    | /api/weather /api/weather?_method=GET /api/nodesc |
      | method overrides               | POST    | with "X-HTTP-Method: GET"            | gated or free, as the method is read    | /api/weather /api/nodesc |
      | method overrides               | POST    | with "X-Method-Override: GET"        | gated or free, as the method is read    | /api/weather |
      | method overrides               | GET     | with "X-HTTP-Method-Override: POST"  | gated or free, as the method is read    | /api/weather /api/translate /api/nodesc |
      | method overrides               | PUT     | with "X-HTTP-Method-Override: POST"  | gated or free, as the method is read    | /api/translate /api/weather |
