/**
 * The panel's words: resource and page names, page titles ("Leads", "Lead", not "List", "Show"), property labels
 * ("Account", "City", not "Account Id", "City Id"), action labels and refusal notices. AdminJS looks a text up under
 * `resources.<id>.<kind>.<name>` first, then `<kind>.<name>`, and otherwise writes the name in start case.
 */

/** AdminJS's refusal texts carry placeholders its notices never fill; these say the same without them. */
const REFUSALS = {
  forbiddenError: 'You are not allowed to do this.',
  anyForbiddenError: 'You are not allowed to do this.',
  error404Resource: 'This page does not exist.',
  error404Action: 'This action does not exist or you are not allowed to use it.',
  error404Record: 'This record does not exist or you are not allowed to see it.',
  thereWereValidationErrors: 'Some fields need a change: see the messages under them.',
  bulkDeleteError: 'Nothing was deleted: the records could not be removed.',
  errorFetchingRecords: 'The list could not be loaded. Reload the page to try again.',
  errorFetchingRecord: 'The record could not be loaded. Reload the page to try again.',
  successfullyCreated: 'Created.',
  successfullyUpdated: 'Saved.',
  successfullyDeleted: 'Deleted.',
  noRecordsInResource: 'Nothing here yet.',
  noRecords: 'Nothing matches.',
};

/** Resource id → [the list's title, one record's name]. */
const NAMES: Record<string, [string, string]> = {
  leads: ['Leads', 'Lead'],
  orders: ['Orders', 'Order'],
  lead_histories: ['Lead histories', 'Lead history entry'],
  order_histories: ['Order histories', 'Order history entry'],
  products: ['Products', 'Product'],
  cities: ['Cities', 'City'],
  users: ['Users', 'User'],
  accounts: ['Accounts', 'Account'],
  api_tokens: ['API keys', 'API key'],
  shipping_companies: ['Shipping companies', 'Shipping company'],
  import_runs: ['Import runs', 'Import run'],
  export_runs: ['Export runs', 'Export run'],
  webhook_endpoints: ['Webhook endpoints', 'Webhook endpoint'],
  webhook_deliveries: ['Webhook deliveries', 'Webhook delivery'],
};

/** Column names in words; one spelling for every resource that has the column. */
const PROPERTIES: Record<string, string> = {
  id: 'ID',
  account_id: 'Account',
  city_id: 'City',
  user_id: 'User',
  lead_id: 'Lead',
  order_id: 'Order',
  full_name: 'Name',
  phone: 'Phone',
  reference: 'Reference',
  lead_reference: 'Lead',
  order_reference: 'Order',
  action_date: 'Call back at',
  products_table: 'Products',
  history_timeline: 'History',
  custom_data: 'Custom data',
  tracking_number: 'Tracking number',
  shipping_company: 'Shipping company',
  last_push_error: 'Last push error',
  push_state: 'Push state',
  push_attempts: 'Push attempts',
  pushed_at: 'Pushed',
  old_status: 'From',
  new_status: 'To',
  changed_by: 'By',
  changed_at: 'When',
  note: 'Note',
  created_at: 'Created',
  updated_at: 'Updated',
  expires_at: 'Expires',
  last_used_at: 'Last used',
  created_by: 'Created by',
  file_extension: 'Format',
  file_name: 'File',
  rows_read: 'Rows read',
  rows_written: 'Rows written',
  rows_failed: 'Rows failed',
  filters_summary: 'Filters',
  endpoint_url: 'Endpoint URL',
  api_key_state: 'API key',
  hmac_secret_state: 'HMAC secret',
  timeout_ms: 'Timeout (ms)',
  sku: 'SKU',
  url: 'URL',
  events: 'Events',
  secret_state: 'Signing secret',
  rotation_grace_until: 'Old secret also signs until',
  failing_since: 'Failing since',
  disabled_at: 'Disabled',
  disabled_reason: 'Why disabled',
  endpoint_id: 'Endpoint',
  event: 'Event',
  event_id: 'Event ID',
  state: 'State',
  attempts: 'Attempts',
  response_code: 'Answer code',
  duration_ms: 'Duration (ms)',
  next_try_at: 'Next try',
  delivered_at: 'Delivered',
  last_error: 'Last error',
  sequence_key: 'Sequence',
  resent_from: 'Resent from',
  payload_text: 'Body sent',
};

/** Per resource: the page titles of its built-in actions, in words. */
function resourceTexts(): Record<string, { actions: Record<string, string> }> {
  return Object.fromEntries(
    Object.entries(NAMES).map(([id, [plural, one]]) => [
      id,
      {
        actions: {
          list: plural,
          show: `${one} details`,
          edit: `Edit ${one.toLowerCase()}`,
          new: `New ${one.toLowerCase()}`,
          delete: `Delete ${one.toLowerCase()}`,
          bulkDelete: 'Delete selected',
        },
      },
    ]),
  );
}

export const LOCALE = {
  language: 'en',
  translations: {
    en: {
      labels: {
        ...Object.fromEntries(Object.entries(NAMES).map(([id, [plural]]) => [id, plural])),
        navigation: 'Menu',
        pages: 'Pages',
        dashboard: 'Home',
      },
      pages: { queue: 'Work queue', kpi: 'KPI dashboard' },
      actions: {
        list: 'List',
        show: 'Details',
        exportCsv: 'Export CSV',
        exportXlsx: 'Export Excel',
        importFile: 'Import file',
        pushToShipping: 'Push to shipping company',
        errorReport: 'Error report',
        download: 'Download',
        rotateSecret: 'Rotate secret',
        resend: 'Resend',
      },
      properties: PROPERTIES,
      resources: resourceTexts(),
      messages: REFUSALS,
    },
  },
};
