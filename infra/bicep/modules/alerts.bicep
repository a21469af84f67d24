// The alerts a team runs the deployment by, all to one action group:
// Cosmos DB throttling (429s), failed function executions, the audit
// lagging behind the writes, and any dead letter. docs/operations-azure.md
// says what each means and what to do.

@description('Name of the action group the alerts notify.')
param actionGroupName string

@description('E-mail address the action group sends alerts to. Empty: the group has no receivers (add them in the portal); the alerts still fire and show in Azure Monitor.')
param alertEmail string

@description('Azure region of the log alert rules (the region of the Application Insights component).')
param location string

@description('Tags applied to the action group and the alert rules.')
param tags object = {}

@description('Cosmos DB account whose throttled requests are counted.')
param cosmosAccountName string

@description('Application Insights component the function, audit-lag and dead-letter alerts query.')
param appInsightsName string

@description('Cosmos DB requests answered 429 (throttled) in 5 minutes above which the throttling alert fires. The SDK retries throttled requests, so a few are normal.')
@minValue(0)
param throttledRequestsPer5Min int

@description('Failed function executions in 5 minutes (failed invocations and 5xx answers; 4xx are the callers\' mistakes) above which the alert fires.')
@minValue(0)
param failedExecutionsPer5Min int

@description('Audit lag in seconds (the worst record in 5 minutes) above which the audit-lag alert fires.')
@minValue(1)
param auditLagSeconds int

resource cosmos 'Microsoft.DocumentDB/databaseAccounts@2026-03-15' existing = {
  name: cosmosAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

var emailReceivers = [
  {
    name: 'operators'
    emailAddress: alertEmail
    useCommonAlertSchema: true
  }
]

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: actionGroupName
  location: 'Global'
  tags: tags
  properties: {
    groupShortName: 'todoaudit'
    enabled: true
    emailReceivers: empty(alertEmail) ? [] : emailReceivers
  }
}

// Platform metric: every request Cosmos DB answered 429, from every
// instance and every caller (the SDK's retries included).
resource throttled 'Microsoft.Insights/metricAlerts@2026-01-01' = {
  name: 'cosmos-throttled-${cosmosAccountName}'
  location: 'global'
  tags: tags
  properties: {
    description: 'Cosmos DB throttles requests (429) above the configured rate: the account is over its throughput or one partition is hot.'
    severity: 2
    enabled: true
    scopes: [
      cosmos.id
    ]
    evaluationFrequency: 'PT1M'
    windowSize: 'PT5M'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'throttled'
          metricNamespace: 'Microsoft.DocumentDB/databaseAccounts'
          metricName: 'TotalRequests'
          dimensions: [
            {
              name: 'StatusCode'
              operator: 'Include'
              values: [
                '429'
              ]
            }
          ]
          operator: 'GreaterThan'
          threshold: throttledRequestsPer5Min
          timeAggregation: 'Count'
        }
      ]
    }
    autoMitigate: true
    actions: [
      {
        actionGroupId: actionGroup.id
      }
    ]
  }
}

// The host records every invocation as a request: a payload-mode function
// (AuditTrigger, Reconcile) that failed, or an HTTP function that answered
// 5xx. 4xx answers are the callers' mistakes and are not counted.
var failedExecutionsQuery = '''
requests
| where success == false
| extend code = toint(resultCode)
| where isnull(code) or code < 400 or code >= 500
'''

// The audit lag the handler records (telemetry.MetricAuditLag, a histogram
// in seconds), which reaches Application Insights as customMetrics when the
// handler's OTLP export (otlpEndpoint) goes to it.
var auditLagQuery = '''
customMetrics
| where name == 'todoaudit.audit.lag'
| project timestamp, LagSeconds = valueMax
'''

// The error line the trigger logs for each dead letter
// (trigger.DeadLetterMessage, a trace from the handler's stderr), and the
// dead-letter counter (telemetry.MetricDeadLetters) where metrics are
// exported.
var deadLettersQuery = '''
union
  (traces | where message contains 'audit dead letter: a document could not be audited'),
  (customMetrics | where name == 'todoaudit.audit.dead_letters' and valueSum > 0)
'''

// The log alerts, each over Application Insights every 5 minutes.
var logAlerts = [
  {
    name: 'function-failures'
    displayName: 'Function executions failed'
    description: 'Function invocations failed or answered 5xx above the configured count.'
    severity: 1
    query: failedExecutionsQuery
    timeAggregation: 'Count'
    metricMeasureColumn: null
    threshold: failedExecutionsPer5Min
  }
  {
    name: 'audit-lag'
    displayName: 'Audit lags behind the writes'
    description: 'An audit record was built longer after its write than the configured bound: the trigger is behind or retrying.'
    severity: 2
    query: auditLagQuery
    timeAggregation: 'Maximum'
    metricMeasureColumn: 'LagSeconds'
    threshold: auditLagSeconds
  }
  {
    name: 'dead-letters'
    displayName: 'Audit dead letter'
    description: 'A changed document could not be audited and was set aside as a dead letter (GET /api/manage/deadletters).'
    severity: 1
    query: deadLettersQuery
    timeAggregation: 'Count'
    metricMeasureColumn: null
    threshold: 0
  }
]

resource logAlertRules 'Microsoft.Insights/scheduledQueryRules@2026-03-01' = [
  for alert in logAlerts: {
    name: '${alert.name}-${appInsightsName}'
    location: location
    tags: tags
    kind: 'LogAlert'
    properties: {
      displayName: alert.displayName
      description: alert.description
      severity: alert.severity
      enabled: true
      scopes: [
        appInsights.id
      ]
      evaluationFrequency: 'PT5M'
      windowSize: 'PT5M'
      criteria: {
        allOf: [
          {
            query: alert.query
            timeAggregation: alert.timeAggregation
            metricMeasureColumn: alert.metricMeasureColumn
            operator: 'GreaterThan'
            threshold: alert.threshold
            failingPeriods: {
              numberOfEvaluationPeriods: 1
              minFailingPeriodsToAlert: 1
            }
          }
        ]
      }
      autoMitigate: true
      actions: {
        actionGroups: [
          actionGroup.id
        ]
      }
    }
  }
]

output actionGroupName string = actionGroup.name
