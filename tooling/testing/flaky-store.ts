// Test helper: a store whose next calls of a chosen method fail (`failNext`), to test outages; a ScriptedStore by another name.
import { ScriptedStore } from './scripted-store.ts';

/** A {@link ScriptedStore} without scripts at construction: `failNext(method, n)` makes the next n calls of `method` reject. */
export class FlakyStore extends ScriptedStore {}
