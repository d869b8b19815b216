/** What the rest of the app uses of Home's assembly. */
export { clock } from './tray';
export { useCorrectTempoMutation } from './assembly.api';
