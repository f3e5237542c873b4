import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';
import { useLang } from '../i18n';

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  Legend,
);

/** A chart.js canvas with a text alternative (the same numbers as a list for screen readers). */
export function ChartView({
  config,
  label,
  summary,
}: {
  config: ChartConfiguration;
  label: string;
  summary: string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const lang = useLang();
  useEffect(() => {
    const chart = new Chart(canvas.current!, {
      ...config,
      // Axes and tooltips format numbers in the chosen language (3.500.000 in pt-BR).
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        locale: lang,
        ...config.options,
      },
    });
    return () => chart.destroy();
  }, [JSON.stringify(config.data), lang]);
  return (
    <figure class="chart">
      <figcaption>{label}</figcaption>
      <div class="chart-box">
        <canvas ref={canvas} role="img" aria-label={`${label}: ${summary}`} />
      </div>
    </figure>
  );
}
