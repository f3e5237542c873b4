import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from 'preact';
import { App } from './App';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      // A 4xx will not change by asking again (404 of another organization's board, 403 of a viewer).
      retry: (n, err) => {
        const status = (err as unknown as { status?: number }).status;
        return n < 2 && !(status && status < 500);
      },
    },
  },
});

render(
  <QueryClientProvider client={queryClient}>
    <App />
  </QueryClientProvider>,
  document.getElementById('root')!,
);
