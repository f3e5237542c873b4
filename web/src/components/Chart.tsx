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
  useEffect(() => {
    const chart = new Chart(canvas.current!, {
      ...config,
      options: { animation: false, responsive: true, maintainAspectRatio: false, ...config.options },
    });
    return () => chart.destroy();
  }, [JSON.stringify(config.data)]);
  return (
    <figure class="chart">
      <figcaption>{label}</figcaption>
      <div class="chart-box">
        <canvas ref={canvas} role="img" aria-label={`${label}: ${summary}`} />
      </div>
    </figure>
  );
}
