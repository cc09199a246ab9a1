import { describe, expect, it } from 'vitest';
import { fieldNamed, messageFor } from './common';

describe('a service message beside its field', () => {
  const message = 'name: is required, at most 64 characters; current_password: does not match';

  it('finds the first field the message names', () => {
    expect(fieldNamed(message, ['current_password', 'name'])).toBe('name');
    expect(fieldNamed(message, ['scope'])).toBeNull();
    expect(fieldNamed(null, ['name'])).toBeNull();
  });

  it('keeps only what it says of that field, without the name', () => {
    expect(messageFor(message, 'current_password')).toBe('does not match');
    expect(messageFor(message, 'name')).toBe('is required, at most 64 characters');
    expect(messageFor('new_password: too short; new_password: too common', 'new_password')).toBe('too short; too common');
  });

  it('gives the whole message when no part names the field', () => {
    expect(messageFor('sign in again to create an access token', 'current_password')).toBe('sign in again to create an access token');
    // A field whose name only begins another's is not it.
    expect(messageFor('current_password_x: no', 'current_password')).toBe('current_password_x: no');
  });
});
