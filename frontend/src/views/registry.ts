// Views by route name. Later issues add entries here (heatmap, compare,
// report...); App renders the one the hash names, falling back to the default.
import type { Component } from 'svelte';
import JobView from './JobView.svelte';

export interface ViewDef {
  /** i18n key of the view's name */
  titleKey: string;
  /** needs a selected job to render */
  needsJob: boolean;
  component: Component<{ cluster: string; job: string }>;
}

export const views: Record<string, ViewDef> = {
  job: { titleKey: 'views.job', needsJob: true, component: JobView },
};
