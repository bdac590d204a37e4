// netgraph dashboard: the little that needs a script. Everything works without it,
// except copying to the clipboard; no data is ever fetched from here.
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  // The API-key creation page answers a form POST; point the address bar at the
  // list so that a reload shows the list instead of resubmitting the form.
  const replaceUrl = document.body.dataset.replaceUrl;
  if (replaceUrl) history.replaceState(null, '', replaceUrl);

  for (const button of document.querySelectorAll('[data-copy-target]')) {
    button.addEventListener('click', async () => {
      const input = document.getElementById(button.dataset.copyTarget);
      if (!input) return;
      try {
        await navigator.clipboard.writeText(input.value);
      } catch {
        input.select();
        document.execCommand('copy');
      }
      const label = button.textContent;
      button.textContent = 'Copied';
      button.dataset.copied = 'true';
      setTimeout(() => {
        button.textContent = label;
        delete button.dataset.copied;
      }, 2000);
    });
  }

  // Deleting a network, a VLAN or an SSID asks first; without a script, Delete is one step behind Edit.
  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }

  // A collector target's form shows the fields of the SNMP version chosen; without a script it shows both.
  for (const version of document.querySelectorAll('select[data-snmp-version]')) {
    const form = version.form;
    const show = () => {
      for (const set of form.querySelectorAll('[data-snmp-fields]')) set.hidden = set.dataset.snmpFields !== version.value;
    };
    version.addEventListener('change', show);
    show();
  }

  // Revoke asks in a dialog; without a script the link opens a confirmation page.
  const dialog = document.getElementById('revoke-dialog');
  if (dialog && typeof dialog.showModal === 'function') {
    const form = dialog.querySelector('form');
    const label = dialog.querySelector('[data-dialog-label]');
    for (const link of document.querySelectorAll('a[data-revoke]')) {
      link.addEventListener('click', (event) => {
        event.preventDefault();
        form.action = link.getAttribute('href');
        label.textContent = `“${link.dataset.label}”`;
        dialog.showModal();
      });
    }
    dialog.querySelector('[data-dialog-cancel]').addEventListener('click', () => dialog.close());
  }
});
