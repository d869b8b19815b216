import type { ReactNode } from 'react';
import { errorDetail } from '../base/api';

type ErrorAlertProps = {
  /** Classes before `error`, e.g. 'center'. */
  className?: string;
  /** A span inside a line of text instead of a paragraph of its own. */
  inline?: boolean;
  'data-testid'?: string;
} & (
  | { /** The words to show. */ children: ReactNode; error?: never; fallback?: never }
  | {
      /** A failed request: its server's detail is shown, or `fallback` when it has none. */
      error: unknown;
      fallback: string;
      children?: never;
    }
);

/**
 * A failure the user should hear about: `<p class="error" role="alert">`. Give it the words as
 * children, or a failed request's error and the words to show when the server sent no detail.
 */
export function ErrorAlert(props: ErrorAlertProps) {
  const Tag = props.inline ? 'span' : 'p';
  return (
    <Tag className={props.className ? `${props.className} error` : 'error'} role="alert" data-testid={props['data-testid']}>
      {props.fallback !== undefined ? errorDetail(props.error, props.fallback) : props.children}
    </Tag>
  );
}
