/** What the rest of the app uses of Home's assembly: the page's steps, and what the studio builds on. */
export { GenerateStep } from './GenerateStep';
export { SettingsStep } from './SettingsStep';
export { UploadStep } from './UploadStep';
export { useJobForm } from './useJobForm';
export { clock } from './tray';
export { useCorrectTempoMutation } from './assembly.api';
export { framingLabel, type Framing } from './framing';
