// A change of the home currency asks what it means: the records were in
// the new currency all along (relabel: only the symbol changes), or every
// amount is converted at a rate the owner gives (convert, on the server, in
// one transaction: proto-docs/fuel-decisions.md, "Currency"), or, going back,
// the last conversion is undone at its own rate (restore). It needs a
// connection: queued offline, a conversion could run after another device
// changed the currency, and converting twice would be wrong; the server
// refuses a change whose "from" is no longer the currency anyway.
//
// The service keeps the owner's last conversion with the preferences (GET
// /api/preferences: last_currency_change), so any device offers its undo;
// proto-docs/web-decisions.md, "Money that survives a round trip".
import { useEffect, useRef, useState } from 'preact/hooks';
import Big from 'big.js';
import { fuel, owns, paths, type CurrencyChangeResult, type CurrencyConversion, type RefuelRecord, type Vehicle } from '../api/fuel';
import { useOnline, useResource } from '../hooks';
import { Dec, round } from '../lib/decimal';
import { inputNumber, numberExample, readNumber } from '../lib/numbers';
import { fmtDate, fmtMoney } from '../lib/format';
import { uuid } from '../lib/uuid';
import { t } from '../i18n';
import { tc, tcn } from '../i18n/currency';
import { ErrorText } from '../components/messages';

export type CurrencyMode = 'relabel' | 'convert' | 'restore';
/** forward: "1 {from} = rate {to}", amounts multiplied; inverse: "1 {to} = rate {from}", amounts divided. */
export type RateDirection = 'forward' | 'inverse';

/** The places a rate may have, as the service accepts it. */
const RATE = /^\d{1,9}(\.\d{1,12})?$/;

/**
 * convertAmount is what the service stores for amount after a conversion:
 * amount × rate, or amount ÷ rate for a rate given the other way round,
 * rounded half-up to 3 places. null for a rate it would refuse.
 */
export function convertAmount(amount: string, rate: string, direction: RateDirection): string | null {
  if (!RATE.test(rate) || new Big(rate).lte(0)) return null;
  const b = direction === 'forward' ? new Big(amount).times(rate) : new Big(amount).div(rate);
  return round(b.toFixed(), 3);
}

const opposite = (d: RateDirection): RateDirection => (d === 'forward' ? 'inverse' : 'forward');

/**
 * restoresExactly: whether converting back at the same rate brings every
 * amount back exactly. So when the amounts are multiplied by 1 or more: the
 * way there errs by at most half a thousandth, which the way back shrinks
 * below the half unit it rounds to (fuel-decisions.md, "Going back"). Below
 * 1, two amounts can become one, and the way back cannot tell them apart.
 */
export function restoresExactly(rate: string, direction: RateDirection): boolean {
  return direction === 'forward' ? new Big(rate).gte(1) : new Big(rate).lte(1);
}

/** The last conversion, as the service keeps it: the rate's digits as sent, and which way round. */
export interface Conversion {
  from: string;
  to: string;
  rate: string;
  /** Given as inverse_rate: amounts were divided by rate ("1 {to} = rate {from}"). */
  inverse: boolean;
  /** When it was made (RFC 3339). */
  at: string;
}

/** A double holds any decimal of 15 significant digits exactly. */
const EXACT_DIGITS = 15;

/**
 * conversionOf: the service's last conversion (GET /api/preferences'
 * last_currency_change) with its rate's digits, or null: none, or a rate
 * whose JSON number may have lost digits (more than 15 significant), whose
 * undo at the digits read would not be the undo the service knows.
 */
export function conversionOf(c: CurrencyConversion | null | undefined): Conversion | null {
  if (!c) return null;
  const inverse = c.inverse_rate != null;
  const n = inverse ? c.inverse_rate : c.rate;
  if (n == null || !Number.isFinite(n) || n <= 0) return null;
  const b = new Big(n);
  const rate = b.toFixed();
  if (b.c.length > EXACT_DIGITS || !RATE.test(rate)) return null;
  return { from: c.from, to: c.to, rate, inverse, at: c.at };
}

/**
 * undoOf: how to undo last when changing from to to: the same rate applied
 * the other way round (what multiplied the amounts now divides them), so the
 * equation the owner reads is the same one ("1 EUR = 1,08 USD"). null when
 * last was not a conversion from to to from.
 */
export function undoOf(last: Conversion | null, from: string, to: string): { rate: string; direction: RateDirection } | null {
  if (!last || last.to !== from || last.from !== to) return null;
  return { rate: last.rate, direction: last.inverse ? 'forward' : 'inverse' };
}

/** What the preview says about a conversion at rate of the example amount. */
export interface Outlook {
  after: string;
  /** The example converted back at the same rate. */
  back: string;
  /** Every amount comes back exactly when converted back at the same rate. */
  exact: boolean;
  /** Going back with a last conversion to undo: the amount before it, and whether this choice gives it. */
  before: string | null;
  undoes: boolean | null;
}

/** outlook: the example amount after the change, back again, and against the last conversion's undo. */
export function outlook(example: string, rate: string, direction: RateDirection, undo: { rate: string; direction: RateDirection } | null): Outlook | null {
  const after = convertAmount(example, rate, direction);
  if (after === null) return null;
  const back = convertAmount(after, rate, opposite(direction))!;
  const before = undo ? convertAmount(example, undo.rate, undo.direction) : null;
  return { after, back, exact: restoresExactly(rate, direction), before, undoes: before === null ? null : new Big(after).eq(before) };
}

interface Props {
  from: string;
  to: string;
  onDone: (result: CurrencyChangeResult, message: string) => void;
  onCancel: () => void;
}

export function CurrencyChange({ from, to, onDone, onCancel }: Props) {
  const online = useOnline();
  const [mode, setMode] = useState<CurrencyMode | null>(null);
  const [rateText, setRateText] = useState('');
  const [direction, setDirection] = useState<RateDirection>('forward');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The service's record of the last conversion; none offered until it is read (or when it cannot be).
  const [last, setLast] = useState<Conversion | null>(null);
  // One key per change asked for: a second click after a lost answer is the same request, replayed.
  const key = useRef<{ body: string; key: string } | null>(null);

  useEffect(() => {
    let live = true;
    void fuel.lastCurrencyChange().then((c) => live && setLast(conversionOf(c)), () => undefined);
    return () => {
      live = false;
    };
  }, [online]);
  const undo = undoOf(last, from, to);

  // The example: the last amount of a vehicle the owner owns, else 100.
  const vehicles = useResource<Vehicle[]>(paths.vehicles);
  const owned = vehicles.data?.find(owns);
  const lastRefuel = useResource<RefuelRecord[]>(owned ? paths.lastRefuel(owned.id) : null);
  const record = lastRefuel.data?.[0];
  const example = String(record ? (record.currency ? record.home_amount ?? record.total_amount : record.total_amount) : 100);

  const typed = readNumber(rateText, 'decimal');
  const chosen = mode === 'restore' && undo ? undo : mode === 'convert' && typed !== null ? { rate: typed, direction } : null;
  const seen = chosen ? outlook(example, chosen.rate, chosen.direction, mode === 'restore' ? null : undo) : null;
  const after = mode === 'relabel' ? example : seen?.after ?? null;

  /** equation: "1 EUR = 1,08 USD", which currency is 1 and which the rate counts. */
  const equation = (rate: string, d: RateDirection) => tc('currency.equation', d === 'forward'
    ? { one: from, rate: inputNumber(rate), other: to }
    : { one: to, rate: inputNumber(rate), other: from });
  const lastEquation = last && undo ? equation(undo.rate, undo.direction) : '';
  const lastDate = last ? fmtDate(last.at) : '';

  // The dialog's own error goes once its cause is acted on.
  const choose = (m: CurrencyMode) => {
    setMode(m);
    setError(null);
  };

  async function apply() {
    setError(null);
    if (mode === null) return setError(tc(undo ? 'currency.errModeUndo' : 'currency.errMode'));
    if (!online) return setError(tc('currency.offline'));
    if (mode === 'convert' && seen === null) return setError(tc('currency.errRate', { example: numberExample('decimal', undefined, rateText) }));
    const rate = mode === 'relabel' ? null : chosen;
    if (mode !== 'relabel' && rate === null) return setError(tc('currency.errMode'));
    const body = {
      from, currency: to, mode: mode === 'relabel' ? 'relabel' as const : 'convert' as const,
      ...(rate ? (rate.direction === 'forward' ? { rate: new Dec(rate.rate) } : { inverse_rate: new Dec(rate.rate) }) : {}),
    };
    const text = JSON.stringify(body);
    if (key.current?.body !== text) key.current = { body: text, key: uuid() };
    setBusy(true);
    try {
      // The service records a conversion, and clears its record on a relabel or the undo, in the same transaction.
      const r = await fuel.changeCurrency(body, key.current.key);
      const counts = { to: r.currency, refuels: tcn('currency.refuels', r.refuels), expenses: tcn('currency.expenses', r.expenses ?? 0) };
      onDone(r, mode === 'relabel'
        ? tc('currency.relabelled', { to })
        : mode === 'restore' ? tc('currency.restored', { ...counts, date: lastDate }) : tc('currency.converted', counts));
    } catch (e) {
      setError(tc('currency.failed', { message: (e as Error).message }));
    } finally {
      setBusy(false);
    }
  }

  const [one, other] = direction === 'forward' ? [from, to] : [to, from];
  return (
    <section class="currency-change" aria-labelledby="currency-change-h">
      <h2 id="currency-change-h">{tc('currency.title', { from, to })}</h2>
      <p>{tc('currency.explain', { from })}</p>
      {undo && (
        <div class="check">
          <input type="radio" id="currency-restore" name="currency-mode" checked={mode === 'restore'} onChange={() => choose('restore')} />
          <label for="currency-restore">
            {restoresExactly(last!.rate, last!.inverse ? 'inverse' : 'forward')
              ? tc('currency.restore', { date: lastDate, equation: lastEquation })
              : tc('currency.restoreNear', { date: lastDate, equation: lastEquation })}
          </label>
        </div>
      )}
      <div class="check">
        <input type="radio" id="currency-relabel" name="currency-mode" checked={mode === 'relabel'} onChange={() => choose('relabel')} />
        <label for="currency-relabel">{tc('currency.relabel', { to })}</label>
      </div>
      <div class="check">
        <input type="radio" id="currency-convert" name="currency-mode" checked={mode === 'convert'} onChange={() => choose('convert')} />
        <label for="currency-convert">{tc('currency.convert')}</label>
      </div>
      {mode === 'convert' && (
        <>
          <div class="field">
            <label for="currency-direction">{tc('currency.direction')}</label>
            <select id="currency-direction" value={direction} onChange={(e) => { setDirection(e.currentTarget.value as RateDirection); setError(null); }}>
              <option value="forward">{tc('currency.rateForward', { from, to })}</option>
              <option value="inverse">{tc('currency.rateInverse', { from, to })}</option>
            </select>
          </div>
          <div class="field">
            <label for="currency-rate">{direction === 'forward' ? tc('currency.rateForward', { from, to }) : tc('currency.rateInverse', { from, to })}</label>
            {/* The field reads as the equation: "1 EUR = [1,08] USD". */}
            <div class="with-unit">
              <span class="unit rate-one" aria-hidden="true">{tc('currency.rateOne', { one })}</span>
              <input id="currency-rate" inputMode="decimal" autoComplete="off" value={rateText} aria-describedby="currency-rate-other"
                onInput={(e) => { setRateText(e.currentTarget.value); setError(null); }} />
              <span id="currency-rate-other" class="unit">{other}</span>
            </div>
          </div>
          <p class="hint">{tc('currency.undoHint', { from })}</p>
        </>
      )}
      {after !== null && mode !== null && (
        <div class="preview" id="currency-preview" aria-live="polite">
          <p>{tc('currency.preview', { before: fmtMoney(example, 0, from), after: fmtMoney(after, 0, to) })}</p>
          {mode === 'convert' && seen && chosen && (
            <>
              <p>{tc('currency.previewEquation', { equation: equation(chosen.rate, chosen.direction) })}</p>
              {seen.undoes === false && (
                <p class="notice">{tc('currency.notUndo', {
                  date: lastDate, equation: lastEquation, example: fmtMoney(example, 0, from), after: fmtMoney(seen.after, 0, to), before: fmtMoney(seen.before!, 0, to),
                })}</p>
              )}
              {seen.undoes === true && <p>{tc('currency.isUndo', { date: lastDate })}</p>}
              {seen.undoes === null && (seen.exact
                ? <p>{tc('currency.backExact', { from })}</p>
                : <p class="notice">{tc('currency.backNotExact', { after: fmtMoney(seen.after, 0, to), back: fmtMoney(seen.back, 0, from) })}</p>)}
            </>
          )}
        </div>
      )}
      <p class="hint">{tc('currency.shared')}</p>
      {!online && <p class="hint">{tc('currency.offline')}</p>}
      <ErrorText error={error} />
      <div class="buttons">
        <button type="button" disabled={busy || !online} onClick={() => void apply()}>{tc('currency.apply')}</button>
        <button type="button" class="secondary" disabled={busy} onClick={onCancel}>{t('common.cancel')}</button>
      </div>
    </section>
  );
}
