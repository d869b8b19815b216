import { useEffect, useId, useRef, type ReactNode } from 'react';

const FIELD = 'input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled])';
/** The field a dialog asks to start on (`data-autofocus`), else its first field. */
const firstField = (dialog: HTMLElement) =>
  dialog.querySelector<HTMLElement>('[data-autofocus]') ?? dialog.querySelector<HTMLElement>(FIELD);

/**
 * A dialog over the page, on the platform's `<dialog>` opened with `showModal()`: the browser keeps
 * focus inside and makes the page behind inert. Focus starts on the field marked `data-autofocus`,
 * else the first field (the close button when there is none), and the dialog never moves it again
 * while it is open, so typing stays where it is. Escape, the close button and a click on the
 * backdrop call `onClose`; the caller unmounts the dialog and focus goes back to the element that
 * opened it.
 */
export function Modal({
  title,
  onClose,
  children,
  className,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  // The latest onClose without making it an effect dependency: callers pass a new function on
  // every render, and the dialog must not react to that.
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  const mounted = useRef(false);
  useEffect(() => {
    mounted.current = true;
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    (firstField(dialog) ?? closeRef.current)?.focus();
    return () => {
      mounted.current = false;
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  // When the content changes under the focus (another step of the same dialog replaces the
  // focused button), focus would fall to the page's body: put it on the new step's first field.
  useEffect(() => {
    const dialog = ref.current!;
    if (!dialog.contains(document.activeElement)) (firstField(dialog) ?? closeRef.current)?.focus();
  }, [title]);

  return (
    <dialog
      ref={ref}
      className={className ? `modal ${className}` : 'modal'}
      aria-labelledby={titleId}
      onCancel={(e) => {
        // Escape: the caller decides (it unmounts the dialog), so the browser must not close it alone.
        e.preventDefault();
        onCloseRef.current();
      }}
      onClose={() => {
        // Chrome may close on a repeated Escape even though cancel was prevented; a caller that
        // kept the dialog (a payment in progress) gets it back.
        if (mounted.current && !ref.current!.open) ref.current!.showModal();
      }}
      onKeyDown={(e) => {
        // Escape closes the dialog at once, even from a search box (whose own Escape would only
        // clear its text first); a part of the dialog that uses Escape itself prevents the default.
        if (e.key !== 'Escape' || e.defaultPrevented || e.nativeEvent.isComposing) return;
        e.preventDefault();
        onCloseRef.current();
      }}
      onMouseDown={(e) => {
        // The backdrop belongs to the <dialog> element itself; its content is wrapped below.
        if (e.target !== e.currentTarget) return;
        const r = e.currentTarget.getBoundingClientRect();
        if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) onCloseRef.current();
      }}
    >
      <div className="modal-body">
        <div className="modal-head">
          <h2 id={titleId}>{title}</h2>
          <button ref={closeRef} type="button" className="icon" aria-label="Close" onClick={() => onCloseRef.current()}>
            ✕
          </button>
        </div>
        {children}
      </div>
    </dialog>
  );
}
