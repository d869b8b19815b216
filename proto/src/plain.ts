import type { Message } from '@bufbuild/protobuf';

/**
 * A generated message type as a plain object: the same fields, without protobuf-es's `$typeName`
 * and `$unknown`, at every depth. The engine works on plain objects of the generated shapes (its
 * plans compare, hash and print as data); a message read from the wire is one already, and a plain
 * object goes back on the wire as is (a message's init shape accepts it).
 */
export type Plain<T> = T extends Message
  ? { [K in keyof T as K extends '$typeName' | '$unknown' ? never : K]: Plain<T[K]> }
  : T extends readonly (infer U)[]
    ? Plain<U>[]
    : T extends object
      ? { [K in keyof T]: Plain<T[K]> }
      : T;
