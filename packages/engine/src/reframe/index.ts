/** Automatic reframing (issue 43): subject analysis, subject choice and camera paths. Pure. */
export * from './types.js';
export {
  SUBJECT_TRACK_VERSION,
  SUBJECT_INTERVAL_SEC,
  analyseSubjects,
  createSubjectAnalyser,
  type SubjectAnalyser,
} from './subject-analysis.js';
export { PATH_RATE, STILL_PX, centerFraming, cropSize, letterboxFraming, planCropPath, sameShape } from './camera-path.js';
export { subjectPresence } from './presence.js';
