/** One way for a form's fields to write its state. */
import type { ChangeEvent, Dispatch, SetStateAction } from 'react';

type FieldElement = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/**
 * Returns `field(k)`, the change handler of the form field `k`: a checkbox writes its `checked`, any other field
 * its `value`. The write is a functional update of the latest state, never of the state the handler was rendered
 * with: two changes between renders (a fill then a select, as a fast user or a browser test makes them) both stay.
 */
export function fieldSetter<T extends object>(setForm: Dispatch<SetStateAction<T>>) {
  return (k: keyof T) => (e: ChangeEvent<FieldElement>) => {
    const { target } = e;
    const value = target instanceof HTMLInputElement && target.type === 'checkbox' ? target.checked : target.value;
    setForm((form) => ({ ...form, [k]: value }));
  };
}
