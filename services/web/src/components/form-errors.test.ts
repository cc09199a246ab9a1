import { afterEach, describe, expect, it } from 'vitest';
import { setLanguage } from '../i18n';
import { fromService, type ServiceFields } from './form-errors';

afterEach(() => setLanguage('en'));

const fields: ServiceFields = {
  name: { id: 'token-name', label: 'Name' },
  current_password: { id: 'token-password', label: 'Current password' },
  odometer: { id: 'odometer', label: 'Odometer' },
};

describe("a service's message as a form's errors", () => {
  it('one error per field it names, in its order, written with the label', () => {
    expect(fromService('name: is required, at most 64 characters; current_password: does not match', fields)).toEqual([
      { id: 'token-name', message: 'Name: is required, at most 64 characters' },
      { id: 'token-password', message: 'Current password: does not match' },
    ]);
  });

  it('a part naming no field belongs to the part before it (a message holding "; ")', () => {
    expect(fromService('odometer: must be a number; "x" is not one', fields)).toEqual([
      { id: 'odometer', message: 'Odometer: must be a number; "x" is not one' },
    ]);
  });

  it('a message naming none of the fields is the whole form\'s, wrapped when asked', () => {
    expect(fromService('sign in again to create an access token', fields)).toEqual([
      { id: null, message: 'sign in again to create an access token' },
    ]);
    expect(fromService('the server refused the refuel', fields, (m) => `Not saved: ${m}`)).toEqual([
      { id: null, message: 'Not saved: the server refused the refuel' },
    ]);
    // A field whose name only begins another's is not it.
    expect(fromService('current_password_x: no', fields)).toEqual([{ id: null, message: 'current_password_x: no' }]);
    expect(fromService(null, fields)).toEqual([]);
  });

  it('what comes before the first named field is said of the form, first', () => {
    expect(fromService('refused; odometer: must be at least 0', fields, (m) => `Not saved: ${m}`)).toEqual([
      { id: null, message: 'Not saved: refused' },
      { id: 'odometer', message: 'Odometer: must be at least 0' },
    ]);
  });

  it('in Chinese the label is followed by a full-width colon', () => {
    setLanguage('zh');
    expect(fromService('odometer: must be at least 0', { odometer: { id: 'odometer', label: '里程表读数' } })).toEqual([
      { id: 'odometer', message: '里程表读数：must be at least 0' },
    ]);
  });
});
