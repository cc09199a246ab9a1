import { afterEach, describe, expect, it } from 'vitest';
import { setLanguage } from '../i18n';
import { fromService, stillShown, type FieldError, type ServiceFields } from './form-errors';

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

describe('an error goes once its cause is fixed', () => {
  const errors: FieldError[] = [
    { id: null, message: 'Not saved: refused' },
    { id: 'odometer', message: 'Odometer: enter the reading' },
    { id: 'total', message: 'Total: enter the amount' },
  ];
  const none = new Set<string>();

  it('nothing changed: every error stays', () => {
    expect(stillShown(errors, none, none, null)).toEqual(errors);
  });

  it("without the form's own check, a control's error goes when it is changed, the others and the form's stay", () => {
    expect(stillShown(errors, new Set(['odometer']), none, null)).toEqual([errors[0], errors[2]]);
  });

  it("with it, one of its errors stays while the check still finds it, whichever control was changed", () => {
    const checked = new Set(['odometer', 'total']);
    // Typed into the odometer, still wrong: it stays.
    expect(stillShown(errors, new Set(['odometer']), checked, [errors[1]!, errors[2]!])).toEqual(errors);
    // Another control fixed it (a reminder's "every km or every months" by typing the months): it goes unchanged.
    expect(stillShown(errors, none, checked, [errors[2]!])).toEqual([errors[0], errors[2]]);
  });

  it("the service's error of a control goes when that control changes, even with a check that never finds it", () => {
    const service: FieldError[] = [{ id: 'station', message: 'Station: too long' }];
    expect(stillShown(service, none, none, [])).toEqual(service);
    expect(stillShown(service, new Set(['station']), none, [])).toEqual([]);
  });
});
