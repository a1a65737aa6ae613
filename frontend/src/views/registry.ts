// Views by route name; App renders the one the hash names, falling back to
// the default (the job's timeline). The fleet (every job) is the first screen
// when more than one job is known (lib/state.svelte.ts).
import type { Component } from 'svelte';
import JobView from './JobView.svelte';
import CheckpointView from './CheckpointView.svelte';
import HeatmapView from './HeatmapView.svelte';
import CompareView from './CompareView.svelte';
import RetentionView from './RetentionView.svelte';
import FleetView from './FleetView.svelte';

export interface ViewDef {
  /** i18n key of the view's name */
  titleKey: string;
  /** needs a selected job to render */
  needsJob: boolean;
  component: Component<{ cluster: string; job: string }>;
}

export const views: Record<string, ViewDef> = {
  job: { titleKey: 'views.job', needsJob: true, component: JobView },
  checkpoint: { titleKey: 'views.checkpointView', needsJob: true, component: CheckpointView },
  heatmap: { titleKey: 'views.heatmap', needsJob: true, component: HeatmapView },
  compare: { titleKey: 'views.compare', needsJob: true, component: CompareView },
  retention: { titleKey: 'views.retention', needsJob: false, component: RetentionView },
  fleet: { titleKey: 'views.fleet', needsJob: false, component: FleetView },
};
