export { ReelsmithClient, ReelsmithError, type AnswerOf, type BodyOf, type ClientOptions, type RequestOptions } from './client.js';
export {
  downloadReel,
  makeReel,
  uploadFile,
  waitForJob,
  type JobRequest,
  type JobStatus,
  type UploadResult,
  type WaitOptions,
} from './helpers.js';
export {
  constructWebhookEvent,
  verifyWebhookSignature,
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  type WebhookEvent,
} from './webhooks.js';
export type { paths, components } from './schema.gen.js';
