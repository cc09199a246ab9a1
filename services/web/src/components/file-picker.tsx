// FilePicker: a file input that speaks the app's language. The browser draws
// a file input's button and its "No file chosen" in its own interface
// language, so an English app in a German browser read "Datei auswählen"
// beside English labels (and headless Chromium wrote English into a German
// screen). The input itself stays the one control, labelled by the field's
// <label for>, focusable and clicked directly (it lies transparent over the
// button we draw), so keyboards, screen readers, the camera's capture and
// tests that set files on it work as with a plain input.
import type { JSX } from 'preact';
import { t, tn } from '../i18n';

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'type' | 'class' | 'capture'>;

/**
 * chosenText: what the picker says beside its button: the name of the one
 * file chosen, how many when several are, or that none is.
 */
export function chosenText(files: readonly { name: string }[] | null | undefined): string {
  if (!files || files.length === 0) return t('file.none');
  if (files.length === 1) return files[0]!.name;
  return tn('file.several', files.length);
}

/**
 * FilePicker: props go to the input (id, accept, multiple, disabled,
 * onChange, aria-describedby); chosen is what was picked (null or [] for
 * nothing), or undefined for a picker whose files are listed or sent at
 * once elsewhere (no text beside the button); capture: 'environment' opens
 * a phone's camera.
 */
export function FilePicker({ chosen, capture, ...input }: InputProps & { chosen?: readonly { name: string }[] | null; capture?: 'environment' | 'user' }) {
  const many = Boolean(input.multiple);
  return (
    <span class={`file-picker${input.disabled ? ' disabled' : ''}`}>
      <span class="button secondary" aria-hidden="true">{t(many ? 'file.chooseMany' : 'file.choose')}</span>
      {chosen !== undefined && <span class="file-chosen" aria-hidden="true">{chosenText(chosen)}</span>}
      <input type="file" class="file-picker-input" capture={capture} {...input} />
    </span>
  );
}
