// Cosmos DB for NoSQL: account (Microsoft Entra only, TLS 1.2), the database
// and all three containers. They are created here because a data-plane
// identity (the app's) cannot create containers: with identity auth the
// trigger's createLeaseContainerIfNotExists must stay false. The account
// sends the RU each logical partition key consumes, and its control-plane
// operations, to Log Analytics.

@description('Cosmos DB account name (globally unique, lowercase).')
param accountName string

@description('Azure region.')
param location string

@description('Tags applied to the account.')
param tags object = {}

@description('Database name (app setting COSMOS_DATABASE).')
param databaseName string

@description('Todo container name (COSMOS_TODO_CONTAINER).')
param todoContainerName string

@description('Audit container name (COSMOS_AUDIT_CONTAINER).')
param auditContainerName string

@description('Leases container name (COSMOS_LEASES_CONTAINER), used by the Cosmos DB trigger.')
param leasesContainerName string

@description('Partition scheme of the todo container. Fixed once the container exists: changing it needs a new container.')
@allowed([
  'hierarchical'
  'category'
  'synthetic'
])
param partitionScheme string

@description('serverless: pay per request. autoscale: provisioned autoscale throughput shared by the database.')
@allowed([
  'serverless'
  'autoscale'
])
param capacityMode string

@description('Autoscale maximum RU/s for the database (autoscale mode only).')
@minValue(1000)
param autoscaleMaxThroughput int

@description('Resource id of the Log Analytics workspace that receives the account\'s resource logs.')
param logAnalyticsWorkspaceId string

// Todo container partition key per scheme. Must match partition.Paths in
// partition/paths.go (infra/infra_test.go checks it). Hierarchical keys use
// MultiHash, which needs partition key version 2.
var todoPartitionKeys = {
  hierarchical: {
    paths: [
      '/userId'
      '/category'
    ]
    kind: 'MultiHash'
    version: 2
  }
  category: {
    paths: [
      '/category'
    ]
    kind: 'Hash'
    version: 2
  }
  synthetic: {
    paths: [
      '/partitionKey'
    ]
    kind: 'Hash'
    version: 2
  }
}

// partition.AuditKeyPaths: one logical partition per entity (owner included).
var auditPartitionKey = {
  paths: [
    '/entityKey'
  ]
  kind: 'Hash'
  version: 2
}

// partition.LeaseKeyPaths: what the Cosmos DB trigger requires.
var leasesPartitionKey = {
  paths: [
    '/id'
  ]
  kind: 'Hash'
  version: 2
}

var serverlessCapabilities = [
  {
    name: 'EnableServerless'
  }
]
var capabilities = capacityMode == 'serverless' ? serverlessCapabilities : []
var autoscaleOptions = {
  autoscaleSettings: {
    maxThroughput: autoscaleMaxThroughput
  }
}
var databaseOptions = capacityMode == 'autoscale' ? autoscaleOptions : {}

// Priority-based execution: over the account's throughput, Cosmos DB
// throttles the requests background work sends at Low priority
// (x-ms-cosmos-priority-level, the cosmos package) before the others, which
// run at the default, High. Supported on provisioned throughput only, not on
// serverless accounts (Cosmos DB: Priority-based execution, Limitations).
var priorityBasedExecution = capacityMode != 'serverless'

resource account 'Microsoft.DocumentDB/databaseAccounts@2026-03-15' = {
  name: accountName
  location: location
  tags: tags
  kind: 'GlobalDocumentDB'
  properties: {
    databaseAccountOfferType: 'Standard'
    consistencyPolicy: {
      defaultConsistencyLevel: 'Session'
    }
    locations: [
      {
        locationName: location
        failoverPriority: 0
        isZoneRedundant: false
      }
    ]
    capabilities: capabilities
    disableLocalAuth: true
    disableKeyBasedMetadataWriteAccess: true
    minimalTlsVersion: 'Tls12'
    publicNetworkAccess: 'Enabled'
    enableAutomaticFailover: false
    enableMultipleWriteLocations: false
    enablePriorityBasedExecution: priorityBasedExecution ? true : null
    defaultPriorityLevel: priorityBasedExecution ? 'High' : null
  }
}

// Resource-specific tables (Dedicated), as the Cosmos DB docs recommend:
// CDBPartitionKeyRUConsumption (per-second RU of each logical partition
// key, for point reads and writes, queries and stored procedures, of every
// instance: the fleet-wide view of hot partitions) and
// CDBControlPlaneRequests (account, throughput and setting changes, such as
// priority-based execution switched off). Per-request DataPlaneRequests is
// left off: it logs every request.
resource diagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'partition-load'
  scope: account
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logAnalyticsDestinationType: 'Dedicated'
    logs: [
      {
        category: 'PartitionKeyRUConsumption'
        enabled: true
      }
      {
        category: 'ControlPlaneRequests'
        enabled: true
      }
    ]
  }
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2026-03-15' = {
  parent: account
  name: databaseName
  properties: {
    resource: {
      id: databaseName
    }
    options: databaseOptions
  }
}

resource todoContainer 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2026-03-15' = {
  parent: database
  name: todoContainerName
  properties: {
    resource: {
      id: todoContainerName
      partitionKey: todoPartitionKeys[partitionScheme]
      // TTL on, no default expiry: only version documents (the audit outbox)
      // carry a per-item ttl (VERSION_TTL_SECONDS); todo documents live on.
      defaultTtl: -1
      // partition.TodoIndexing: only what the queries filter and sort on
      // (tags by their elements, for ARRAY_CONTAINS), and the partition key
      // paths of every scheme; everything else (notes, version snapshots)
      // is not indexed, so writes do not pay for it. Each sort property has
      // a composite index with id, which breaks ties; it serves both
      // directions. TTL and the change feed work from _ts, which is always
      // indexed, as id is.
      indexingPolicy: {
        indexingMode: 'consistent'
        automatic: true
        includedPaths: [
          {
            path: '/type/?'
          }
          {
            path: '/userId/?'
          }
          {
            path: '/category/?'
          }
          {
            path: '/isCompleted/?'
          }
          {
            path: '/movingTo/?'
          }
          {
            path: '/partitionKey/?'
          }
          {
            path: '/dueDate/?'
          }
          {
            path: '/createdAt/?'
          }
          {
            path: '/updatedAt/?'
          }
          {
            path: '/title/?'
          }
          {
            path: '/tags/[]/?'
          }
        ]
        excludedPaths: [
          {
            path: '/*'
          }
        ]
        compositeIndexes: [
          [
            {
              path: '/dueDate'
              order: 'ascending'
            }
            {
              path: '/id'
              order: 'ascending'
            }
          ]
          [
            {
              path: '/createdAt'
              order: 'ascending'
            }
            {
              path: '/id'
              order: 'ascending'
            }
          ]
          [
            {
              path: '/updatedAt'
              order: 'ascending'
            }
            {
              path: '/id'
              order: 'ascending'
            }
          ]
          [
            {
              path: '/title'
              order: 'ascending'
            }
            {
              path: '/id'
              order: 'ascending'
            }
          ]
        ]
      }
    }
  }
}

resource auditContainer 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2026-03-15' = {
  parent: database
  name: auditContainerName
  properties: {
    resource: {
      id: auditContainerName
      partitionKey: auditPartitionKey
      // No defaultTtl: audit history is kept forever.
      // partition.AuditIndexing: history is one entity's records ordered by
      // version, verification looks a record up by its hash, dead letters
      // are listed by at, activity entries by at too, with filters on
      // actor, owner, operation, category and entityId, the retention purge
      // finds records by dateCreatedUtc; the entity snapshot and everything
      // else is not indexed.
      indexingPolicy: {
        indexingMode: 'consistent'
        automatic: true
        includedPaths: [
          {
            path: '/entityKey/?'
          }
          {
            path: '/version/?'
          }
          {
            path: '/hash/?'
          }
          {
            path: '/at/?'
          }
          {
            path: '/actor/?'
          }
          {
            path: '/owner/?'
          }
          {
            path: '/operation/?'
          }
          {
            path: '/category/?'
          }
          {
            path: '/entityId/?'
          }
          {
            path: '/dateCreatedUtc/?'
          }
        ]
        excludedPaths: [
          {
            path: '/*'
          }
        ]
      }
    }
  }
}

resource leasesContainer 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2026-03-15' = {
  parent: database
  name: leasesContainerName
  properties: {
    resource: {
      id: leasesContainerName
      partitionKey: leasesPartitionKey
      // No indexingPolicy: Cosmos DB's default (every path), as the
      // Functions host queries its lease documents as it needs.
    }
  }
}

output accountName string = account.name
output accountId string = account.id
output endpoint string = account.properties.documentEndpoint
output databaseName string = database.name
output containerNames array = [
  todoContainer.name
  auditContainer.name
  leasesContainer.name
]
