// Cucumber parameter types of the conformance vocabulary: {card}, {encoding}, {fault}, {signature}.
import { defineParameterType } from '@cucumber/cucumber';
import type { FaultKind } from 'credit402-stripe-emulator';
import type { Encoding } from '../world/base64-json.ts';
import type { CardRole } from '../world/world.ts';

defineParameterType({
  name: 'card',
  regexp: /the card's second payment method|the other card|the card/,
  transformer: (text: string): CardRole => text as CardRole,
});

defineParameterType({
  name: 'encoding',
  regexp: /url-safe unpadded|url-safe|unpadded|standard|mixed alphabets/,
  transformer: (text: string): Encoding => text as Encoding,
});

const FAULTS: Record<string, FaultKind> = { 'answers 500 to': 'error500', 'resets the connection of': 'reset', 'times out': 'timeout' };

defineParameterType({
  name: 'fault',
  regexp: /answers 500 to|resets the connection of|times out/,
  transformer: (text: string): FaultKind => FAULTS[text] ?? 'error500',
});

defineParameterType({
  name: 'signature',
  regexp: /no signature|a malformed signature|a signature made with another secret|a signature 301 seconds old|a signature over other bytes/,
  transformer: (text: string) => text,
});
