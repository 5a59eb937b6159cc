// Unit tests of target declarations: accepted forms and the errors that name the mistake.
import { describe, expect, it } from 'vitest';
import { DeclarationError, parseDeclarations, parseDeclareItems, requiredCapabilities } from './declarations.ts';

describe('declarations', () => {
  it('accepts --declare strings and JSON values alike', () => {
    expect(parseDeclarations(parseDeclareItems(['serviceName=stripe402', 'robustness=true', 'capabilities=records,storeFaults']))).toEqual({
      serviceName: 'stripe402',
      robustness: true,
      capabilities: ['records', 'storeFaults'],
    });
    expect(parseDeclarations({ customerMetadataKey: 'stripe402_client_id', robustness: false })).toEqual({ customerMetadataKey: 'stripe402_client_id', robustness: false });
  });

  it.each([
    [{ servicename: 'x' }, 'unknown declaration servicename'],
    [{ serviceName: '' }, 'serviceName must be'],
    [{ robustness: 'yes' }, 'robustness must be true or false'],
    [{ capabilities: 'records,teleport' }, 'unknown capability "teleport"'],
    [[], 'must be a JSON object'],
  ])('rejects %j', (value, message) => {
    expect(() => parseDeclarations(value)).toThrow(DeclarationError);
    expect(() => parseDeclarations(value)).toThrow(message);
  });

  it('rejects an item without =', () => {
    expect(() => parseDeclareItems(['robustness'])).toThrow('--declare takes key=value');
  });
});

describe('capability tags', () => {
  it('name the capabilities a scenario needs', () => {
    expect(requiredCapabilities(['@CR-6.6', '@store-faults', '@records'])).toEqual(['storeFaults', 'records']);
    expect(requiredCapabilities(['@CR-6.2'])).toEqual([]);
    expect(requiredCapabilities(['@gateway', '@CR-15.3'])).toEqual(['gateway']);
  });
});
