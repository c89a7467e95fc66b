// robots-audit dashboard: the only script. It keeps a running run's progress bar current by
// asking /runs/<id>/progress every few seconds, and reloads the page when the run ends. The pages
// work without it.
'use strict';
const POLL_MS = 3000;
for (const bar of document.querySelectorAll('progress[data-progress-url]')) {
  const url = bar.getAttribute('data-progress-url');
  const text = bar.parentElement ? bar.parentElement.querySelector('.progress-text') : null;
  const poll = async () => {
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      if (!response.ok) return;
      const progress = await response.json();
      bar.max = progress.sitesTotal;
      bar.value = progress.sitesDone;
      if (text) text.textContent = `${progress.sitesDone.toLocaleString('en-US')} of ${progress.sitesTotal.toLocaleString('en-US')} sites`;
      if (progress.status !== 'running') {
        location.reload();
        return;
      }
    } catch {
      // The server may be restarting: try again at the next tick.
    }
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
}
