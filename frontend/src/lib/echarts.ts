// Apache ECharts, tree-shaken to the charts the views use. Loaded on demand
// (EChart.svelte imports this module dynamically) so the first screen does not
// wait for it; the theme helpers live in chartTheme.ts.
import * as echarts from 'echarts/core';
import * as charts from 'echarts/charts';
import * as components from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

// Each part is named once, here; the bundler keeps only these of the namespaces.
echarts.use([
  charts.HeatmapChart,
  charts.LineChart,
  charts.ScatterChart,
  components.GridComponent,
  components.MarkAreaComponent,
  components.MarkLineComponent,
  components.MarkPointComponent,
  components.TooltipComponent,
  components.VisualMapComponent,
  CanvasRenderer,
]);

export { echarts };
