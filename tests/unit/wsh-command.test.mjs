// Issue 35: the Remote panel shows the exact command that starts wsh-server on a machine without
// a clone: npx with this app's tarball, the machine URL's port, this browser's key (quoted for the
// shell), and --origins when the app is not served from localhost (the server's default refuses it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverCommand } from '../../web/ui/wsh-command.js';

const keyLine = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB+x/y= clawser-laptop';

test('served from localhost: the tarball of this app, the port of the machine URL, the key; no --origins', () => {
  assert.equal(
    serverCommand({ appUrl: 'http://localhost:8080/', keyLine, machineUrl: 'ws://127.0.0.1:40211/wsh' }),
    `npx --yes --package=http://localhost:8080/web/vendor/wsh-server.tgz wsh-server --port 40211 --key "${keyLine}"`,
  );
});

test('served from another origin (and a sub-path): --origins names it; control: 127.0.0.1 needs none', () => {
  assert.equal(
    serverCommand({ appUrl: 'https://me.example/clawser/index.html', keyLine, machineUrl: 'ws://127.0.0.1:9000/wsh' }),
    'npx --yes --package=https://me.example/clawser/web/vendor/wsh-server.tgz wsh-server --port 9000 ' +
      `--origins https://me.example --key "${keyLine}"`,
  );
  assert.doesNotMatch(serverCommand({ appUrl: 'http://127.0.0.1:5173/', keyLine, machineUrl: 'ws://127.0.0.1:9000/wsh' }), /--origins/);
});

test('the key is one shell word whatever its comment holds', () => {
  const odd = 'ssh-ed25519 AAAA c"$(rm -rf ~)`x`\\';
  const cmd = serverCommand({ appUrl: 'http://localhost:8080/', keyLine: odd, machineUrl: 'ws://127.0.0.1:1/wsh' });
  assert.ok(cmd.endsWith('--key "ssh-ed25519 AAAA c\\"\\$(rm -rf ~)\\`x\\`\\\\"'), cmd);
});
