/**
 * Names for the API's objects, all from the types generated from the gateway's OpenAPI document
 * (schema.gen.ts, `npm run gen`); nothing here is written by hand.
 */
import type { components } from './schema.gen.js';

type Schemas = components['schemas'];

export type ApiErrorBody = Schemas['ErrorBody'];
export type User = Schemas['User'];
export type Entitlements = Schemas['Entitlements'];
export type SessionReply = Schemas['SessionReply'];
/** A job request as the client sends it (fields with a server default are optional). */
export type JobRequest = Schemas['JobRequestInput'];
/** A complete job request (every default applied). */
export type FullJobRequest = Schemas['JobRequest'];
export type Pacing = FullJobRequest['pacing_preset'];
export type TitleFont = FullJobRequest['title_config']['font'];
export type TitlePosition = FullJobRequest['title_config']['position'];
export type Aspect = FullJobRequest['aspect'];
export type JobStatus = Schemas['JobStatus'];
export type JobStatusName = JobStatus['status'];
export type UploadResult = Schemas['UploadResult'];
export type Reel = Schemas['Reel'];
export type ReelList = Schemas['ReelList'];
export type EstimateRequest = Schemas['EstimateRequest'];
export type Catalogue = Schemas['Catalogue'];
export type GuestPass = Schemas['GuestPass'];
export type Message = Schemas['Message'];

export { jobRequestDefaults, jobRequestLimits } from './schema.gen.js';
export type JobList = Schemas['JobList'];
export type UploadInfo = Schemas['UploadInfo'];
/** POST /jobs/plan: a job request, with optionally a plan, segments to re-roll, segments locked and a seed. */
export type PlanRequest = Schemas['PlanRequestInput'];
export type PlanResult = Schemas['PlanResult'];
export type EditPlan = Schemas['EditPlan'];
export type PlanSegment = Schemas['PlanSegment'];
export type PlanMusic = Schemas['PlanMusic'];
export type TempoCorrectionRequest = Schemas['TempoCorrectionRequestInput'];
export type TempoCorrectionKind = PlanMusic['tempo_corrections'][number];
