import { useEffect, useRef } from 'preact/hooks';
import { getSession } from './session';

export interface LiveEvent {
  event: string;
  data: any;
}

/**
 * Reads a Server-Sent Events stream of the API with the session's headers. EventSource cannot send
 * `Authorization`, and the service takes no token in the URL, so this is fetch with a streamed body, parsed
 * here. It reconnects after a drop (1 s, doubling up to 30 s) until `stop()`; a 4xx answer ends it for good
 * (no session, no plan feature).
 */
export function openLive(path: string, onEvent: (e: LiveEvent) => void, onOpen?: () => void) {
  let stopped = false;
  let ctrl: AbortController | null = null;
  let delay = 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = async () => {
    const s = getSession();
    if (stopped || !s?.org) return;
    ctrl = new AbortController();
    try {
      const res = await fetch(path, {
        headers: {
          accept: 'text/event-stream',
          authorization: `Bearer ${s.jwt}`,
          'x-tenant-id': s.org.slug,
        },
        signal: ctrl.signal,
        cache: 'no-store',
      });
      if (res.status >= 400 && res.status < 500) return;
      if (!res.ok || !res.body) throw new Error(`stream ${res.status}`);
      delay = 1000;
      onOpen?.();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let idx = buf.indexOf('\n\n');
        while (idx >= 0) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          idx = buf.indexOf('\n\n');
          let event = '';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data += line.slice(5).trim();
          }
          if (event && data) onEvent({ event, data: JSON.parse(data) });
        }
      }
    } catch {
      // aborted by stop(), or the connection dropped: retried below unless stopped
    }
    if (stopped) return;
    timer = setTimeout(run, delay);
    delay = Math.min(delay * 2, 30_000);
  };
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
    ctrl?.abort();
  };
}

/** Subscribes a component to a live stream while it is mounted (the latest handler is always called). */
export function useLive(path: string | null, onEvent: (e: LiveEvent) => void, onOpen?: () => void) {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const opened = useRef(onOpen);
  opened.current = onOpen;
  useEffect(() => {
    if (!path) return;
    return openLive(
      path,
      (e) => handler.current(e),
      () => opened.current?.(),
    );
  }, [path]);
}
