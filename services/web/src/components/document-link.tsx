// A link to a manual's original PDF at a page, fetched with the token
// when accounts are on.
import type { ComponentChildren } from 'preact';
import { fileUrl, openFile } from '../api/docqa';
import { t } from '../i18n';

interface DocumentLinkProps {
  md5: string;
  page: number;
  /** The file's name, for the new tab and the error message. */
  name: string;
  /** With accounts (AUTH_MODE=local) the file is fetched with the token (openFile); without, the link is a plain one. */
  withToken: boolean;
  /** Called with null when an opening starts, and with what went wrong if it fails. */
  onError: (message: string | null) => void;
  class?: string;
  children: ComponentChildren;
}

/** DocumentLink opens a document's original PDF at a page in a new tab. */
export function DocumentLink({ md5, page, name, withToken, onError, class: cls, children }: DocumentLinkProps) {
  const open = (e: MouseEvent) => {
    if (!withToken) return;
    e.preventDefault();
    onError(null);
    openFile(md5, page, name).catch((err: Error) => onError(t('common.couldNotOpen', { name, message: err.message })));
  };
  return (
    <a class={cls} href={fileUrl(md5, page)} target="_blank" rel="noopener" onClick={open}
      onAuxClick={(e) => {
        if (e.button === 1) open(e); // the middle button, which would open the plain link
      }}>{children}</a>
  );
}
