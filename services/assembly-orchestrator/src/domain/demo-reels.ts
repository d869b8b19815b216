import type { AspectName, JobRequestInput, PacingPreset } from '@reelsmith/proto';
import type { Logger } from '@reelsmith/kit';

/**
 * First start: when the showcase is empty, render a few demo reels from the starter library as
 * the system account (unlimited: never charged) through the normal job path, one at a time so
 * users' jobs never wait behind more than one of them, and feature each in its category.
 */

export interface DemoPlan {
  key: string;
  title: string;
  category: string;
  pacing: PacingPreset;
  aspect: AspectName;
}

/** Four reels in different categories and pacings; categories name the style, not invented content. */
export const DEMO_PLANS: readonly DemoPlan[] = [
  { key: 'relaxed', title: 'Relaxed cut', category: 'Cinematic', pacing: 'relaxed', aspect: '16:9' },
  { key: 'standard', title: 'Standard cut', category: 'Highlights', pacing: 'standard', aspect: '16:9' },
  { key: 'high-energy', title: 'High-energy cut', category: 'Action', pacing: 'high-energy', aspect: '16:9' },
  { key: 'vertical', title: 'Vertical story', category: 'Social', pacing: 'standard', aspect: '9:16' },
];

/** Polls without a new starter clip after which the clips there are taken as all there is. */
const SETTLE_POLLS = 3;

export interface StarterClip {
  objectKey: string;
  durationSec: number;
}

/** The narrow interface the task needs; the adapters live in repositories/. */
export interface DemoReelPorts {
  /** How many reels the showcase holds now. */
  showcaseSize(): Promise<number>;
  /** Starter-library video clips the system account may use in a job (empty until imported). */
  starterClips(): Promise<StarterClip[]>;
  /** The normal job path; the same key gives the same job, so a restart resumes instead of repeating. */
  createJob(ownerId: string, request: JobRequestInput, idempotencyKey: string): Promise<string>;
  jobOutcome(jobId: string): Promise<'pending' | 'completed' | 'failed'>;
  /** Marks the reel shared by its owner and features it in the category. */
  feature(ownerId: string, reelId: string, category: string): Promise<void>;
  sleep(ms: number): Promise<void>;
}

export interface DemoReelOptions {
  ownerId: string;
  /** How often to look for clips and job outcomes. */
  pollMs: number;
  /** Give up waiting for the starter library after this long. */
  clipWaitMs: number;
  /** Give up on one job after this long. */
  jobWaitMs: number;
  clipsPerReel?: number;
}

export class DemoReels {
  private stopped = false;
  constructor(
    private readonly ports: DemoReelPorts,
    private readonly opts: DemoReelOptions,
    private readonly log: Logger,
  ) {}

  stop() {
    this.stopped = true;
  }

  /** The clips of plan i: a rotating window over the library so the reels differ. */
  static clipsFor(clips: StarterClip[], i: number, per: number): string[] {
    const n = Math.min(per, clips.length);
    return Array.from({ length: n }, (_, k) => clips[(i * n + k) % clips.length]!.objectKey);
  }

  /** Runs once; returns the reels featured. */
  async run(): Promise<string[]> {
    const size = await this.showcaseSize();
    if (size === null) return [];
    if (size > 0) {
      this.log.info('showcase not empty; no demo reels needed');
      return [];
    }
    const per = this.opts.clipsPerReel ?? 4;
    let clips = await this.waitForClips(per);
    if (!clips.length) return [];
    const featured: string[] = [];
    for (const [i, plan] of DEMO_PLANS.entries()) {
      if (this.stopped) break;
      // The starter import may still be adding clips: each reel takes its window of the latest
      // list, so the reels (and their thumbnails on the Hall of Fame) show different clips.
      if (i > 0) {
        const now = await this.starterClips();
        if (now.length > clips.length) clips = now;
      }
      const request: JobRequestInput = {
        media_files: DemoReels.clipsFor(clips, i, per),
        pacing_preset: plan.pacing,
        aspect: plan.aspect,
        enable_beat_mapping: true,
        enable_intelligence: true,
        output_filename: `${plan.key}.mp4`,
        title_config: { enabled: true, text: plan.title },
      };
      try {
        const jobId = await this.ports.createJob(this.opts.ownerId, request, `first-start-demo-${plan.key}`);
        const outcome = await this.waitForJob(jobId);
        if (outcome !== 'completed') {
          this.log.warn({ job_id: jobId, plan: plan.key, outcome }, 'demo reel not made');
          continue;
        }
        await this.ports.feature(this.opts.ownerId, jobId, plan.category);
        featured.push(jobId);
        this.log.info({ job_id: jobId, category: plan.category }, 'demo reel featured');
      } catch (e) {
        this.log.warn({ err: e, plan: plan.key }, 'demo reel failed');
      }
    }
    return featured;
  }

  /**
   * The showcase's size once media-library answers. At first start the orchestrator usually
   * starts before media-library serves (the supervisor starts them together and restarts any that
   * fail), so one refused call must not end the task for good: it asks again until the same wait
   * as for the starter clips is over.
   */
  private async showcaseSize(): Promise<number | null> {
    const until = Date.now() + this.opts.clipWaitMs;
    while (!this.stopped) {
      try {
        return await this.ports.showcaseSize();
      } catch (e) {
        if (Date.now() >= until) {
          this.log.warn({ err: e }, 'media-library never answered; demo reels skipped');
          return null;
        }
      }
      await this.ports.sleep(this.opts.pollMs);
    }
    return null;
  }

  private async starterClips(): Promise<StarterClip[]> {
    return (await this.ports.starterClips().catch(() => [])).filter((c) => c.durationSec > 0);
  }

  /**
   * The starter clips once there are enough for one reel (`per`), or once they stop coming (no new
   * clip for SETTLE_POLLS polls: a small library), or whatever is there when the wait is over.
   * Returning at the first clip made the first reels of one clip each, all alike.
   */
  private async waitForClips(per: number): Promise<StarterClip[]> {
    const until = Date.now() + this.opts.clipWaitMs;
    let clips: StarterClip[] = [];
    let unchanged = 0;
    while (!this.stopped) {
      const now = await this.starterClips();
      unchanged = now.length === clips.length ? unchanged + 1 : 0;
      clips = now;
      if (clips.length >= per || (clips.length && unchanged >= SETTLE_POLLS)) return clips;
      if (Date.now() >= until) {
        if (!clips.length) this.log.warn('no starter clips appeared; demo reels skipped');
        return clips;
      }
      await this.ports.sleep(this.opts.pollMs);
    }
    return [];
  }

  private async waitForJob(jobId: string): Promise<'completed' | 'failed' | 'timeout'> {
    const until = Date.now() + this.opts.jobWaitMs;
    while (!this.stopped && Date.now() < until) {
      const o = await this.ports.jobOutcome(jobId);
      if (o !== 'pending') return o;
      await this.ports.sleep(this.opts.pollMs);
    }
    return 'timeout';
  }
}
