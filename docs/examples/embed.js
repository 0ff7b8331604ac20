// The script of embed.html: loads Herald's client from the server itself (/client.js) and shows one job's
// progress. Query string: `server` (the Herald server's http(s) URL) and `job` (the job's id).
const query = new URLSearchParams(location.search);
const server = query.get('server') || '';
const jobId = query.get('job') || '';
const $ = (id) => document.getElementById(id);

function showError(text) {
  $('error').textContent = text;
  $('error').hidden = false;
}

function show(job) {
  const fraction = typeof job.progress.fraction === 'number' ? job.progress.fraction : 0;
  $('bar').value = fraction;
  $('percent').textContent = Math.floor(fraction * 100) + '%';
  $('state').textContent = job.state;
  $('message').textContent = job.error || job.progress.message || '';
  document.body.dataset.state = job.state; // for the eye and for tests: the job's state as last shown
}

async function main() {
  $('job').textContent = jobId || '(none)';
  if (!server || !jobId) {
    showError('Give the server and the job in the address: embed.html?server=http://127.0.0.1:8080/&job=j-…');
    return;
  }
  let HeraldClient;
  try {
    ({ HeraldClient } = await import(new URL('/client.js', server).href));
  } catch (error) {
    showError('Could not load the Herald client from ' + server + ': the server is not running, or it does not ' +
      'allow this page (start it with --allow-origin ' + location.origin + ').');
    return;
  }
  const client = new HeraldClient(server);
  let seenSnapshot = false;
  client.addEventListener('snapshot', (event) => {
    seenSnapshot = true;
    $('error').hidden = true;
    if (!client.jobs.has(jobId)) $('state').textContent = 'not among the server\'s current jobs';
  });
  client.addEventListener('status', (event) => {
    $('connection').textContent = event.detail.state;
  });
  client.addEventListener('close', () => {
    if (!seenSnapshot) showError('The server refused the connection (is --allow-origin ' + location.origin + ' set?); retrying.');
  });
  client.watchJob(jobId, show);
  client.connect();
}

main();
