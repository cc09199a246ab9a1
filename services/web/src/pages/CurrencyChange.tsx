// A change of the home currency asks what it means: the records were in
// the new currency all along (relabel: only the symbol changes), or every
// amount is converted at a rate the owner gives (convert, on the server, in
// one transaction: proto-docs/fuel-decisions.md, "Currency"). It needs a
// connection: queued offline, a conversion could run after another device
// changed the currency, and converting twice would be wrong; the server
// refuses a change whose "from" is no longer the currency anyway.
import { useRef, useState } from 'preact/hooks';
import Big from 'big.js';
import { fuel, owns, paths, type CurrencyChangeResult, type RefuelRecord, type Vehicle } from '../api/fuel';
import { useOnline, useResource } from '../hooks';
import { Dec, parseDecimal, round } from '../lib/decimal';
import { fmtMoney } from '../lib/format';
import { uuid } from '../lib/uuid';
import { t } from '../i18n';
import { tc } from '../i18n/currency';
import { ErrorText } from '../components/common';

export type CurrencyMode = 'relabel' | 'convert';
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
  // One key per change asked for: a second click after a lost answer is the same request, replayed.
  const key = useRef<{ body: string; key: string } | null>(null);

  // The example: the last amount of a vehicle the owner owns, else 100.
  const vehicles = useResource<Vehicle[]>(paths.vehicles);
  const owned = vehicles.data?.find(owns);
  const last = useResource<RefuelRecord[]>(owned ? paths.lastRefuel(owned.id) : null);
  const record = last.data?.[0];
  const example = String(record ? (record.currency ? record.home_amount ?? record.total_amount : record.total_amount) : 100);

  const rate = parseDecimal(rateText);
  const converted = mode === 'convert' && rate !== null ? convertAmount(example, rate, direction) : null;
  const after = mode === 'relabel' ? example : converted;

  async function apply() {
    setError(null);
    if (mode === null) return setError(tc('currency.errMode'));
    if (!online) return setError(tc('currency.offline'));
    if (mode === 'convert' && converted === null) return setError(tc('currency.errRate'));
    const body = {
      from, currency: to, mode,
      ...(mode === 'convert' && rate !== null ? (direction === 'forward' ? { rate: new Dec(rate) } : { inverse_rate: new Dec(rate) }) : {}),
    };
    const text = JSON.stringify(body);
    if (key.current?.body !== text) key.current = { body: text, key: uuid() };
    setBusy(true);
    try {
      const r = await fuel.changeCurrency(body, key.current.key);
      onDone(r, mode === 'relabel'
        ? tc('currency.relabelled', { to })
        : tc('currency.converted', { to, count: String(r.refuels) }));
    } catch (e) {
      setError(tc('currency.failed', { message: (e as Error).message }));
    } finally {
      setBusy(false);
    }
  }

  const rateLabel = direction === 'forward' ? tc('currency.rateForward', { from, to }) : tc('currency.rateInverse', { from, to });
  return (
    <section class="currency-change" aria-labelledby="currency-change-h">
      <h2 id="currency-change-h">{tc('currency.title', { from, to })}</h2>
      <p>{tc('currency.explain', { from })}</p>
      <div class="check">
        <input type="radio" id="currency-relabel" name="currency-mode" checked={mode === 'relabel'} onChange={() => setMode('relabel')} />
        <label for="currency-relabel">{tc('currency.relabel', { to })}</label>
      </div>
      <div class="check">
        <input type="radio" id="currency-convert" name="currency-mode" checked={mode === 'convert'} onChange={() => setMode('convert')} />
        <label for="currency-convert">{tc('currency.convert')}</label>
      </div>
      {mode === 'convert' && (
        <>
          <div class="field">
            <label for="currency-direction">{tc('currency.direction')}</label>
            <select id="currency-direction" value={direction} onChange={(e) => setDirection(e.currentTarget.value as RateDirection)}>
              <option value="forward">{tc('currency.rateForward', { from, to })}</option>
              <option value="inverse">{tc('currency.rateInverse', { from, to })}</option>
            </select>
          </div>
          <div class="field">
            <label for="currency-rate">{rateLabel}</label>
            <input id="currency-rate" inputMode="decimal" autoComplete="off" value={rateText} onInput={(e) => setRateText(e.currentTarget.value)} />
          </div>
          <p class="hint">{tc('currency.undoHint', { from, to })}</p>
        </>
      )}
      {after !== null && mode !== null && (
        <p class="preview" id="currency-preview">
          {tc('currency.preview', { before: fmtMoney(example, 0, from), after: fmtMoney(after, 0, to) })}
        </p>
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
